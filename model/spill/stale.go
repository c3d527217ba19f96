package spill

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// spillDirPrefix begins the name of every spill directory, followed by the
// id of the process that made it and a dash.
const spillDirPrefix = "locktable-census-"

var sweepOnce sync.Once

// staleAfter is how long a spill directory must have gone unwritten before
// a process may remove it: the process that made it must also be gone.
const staleAfter = 24 * time.Hour

// removeStaleSpills removes, once per process, the spill directories in
// dir that a process no longer running made and that nothing has written
// to for staleAfter: a check killed (SIGKILL, a crash) cannot remove its
// own. Both, because a process id says nothing across the process
// namespaces of containers sharing a temporary directory: a check running
// in another may look gone, but it writes to its directory as it spills.
// A running check that loses its directory anyway fails (a partition file
// gone is an error), never reports fewer problems. now is the file
// system's time, as it stamps what is written.
func removeStaleSpills(dir string, now time.Time) {
	sweepOnce.Do(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), spillDirPrefix)
			pidText, _, dashed := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || !dashed || !e.IsDir() || err != nil || pid == os.Getpid() || !processGone(pid) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if now.Sub(lastWritten(path)) > staleAfter {
				os.RemoveAll(path) // best effort: what stays is only disk
			}
		}
	})
}

// lastWritten is the latest modification time of dir and its files.
func lastWritten(dir string) time.Time {
	var last time.Time
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
		return nil
	})
	return last
}
