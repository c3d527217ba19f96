package model

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// spillDirPrefix begins the name of every spill directory, followed by the
// id of the process that made it and a dash.
const spillDirPrefix = "locktable-census-"

var sweepOnce sync.Once

// removeStaleSpills removes, once per process, the spill directories in
// dir that a process no longer running made: a check killed (SIGKILL, a
// crash) cannot remove its own. A directory whose process still runs, or
// whose id now names another process, is left alone: only a process known
// gone loses its files, so a running check never loses a partition.
func removeStaleSpills(dir string) {
	sweepOnce.Do(func() {
		matches, _ := filepath.Glob(filepath.Join(dir, spillDirPrefix+"*-*"))
		for _, m := range matches {
			rest := strings.TrimPrefix(filepath.Base(m), spillDirPrefix)
			pid, err := strconv.Atoi(rest[:strings.IndexByte(rest, '-')])
			if err != nil || pid == os.Getpid() || !processGone(pid) {
				continue
			}
			os.RemoveAll(m) // best effort: what stays is only disk
		}
	})
}
