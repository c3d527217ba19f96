package spill

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpillRemovesStaleDirs: the first set a process creates removes the
// spill directories of processes that are gone (a check killed) once
// nothing has written to them for a day, and leaves the others.
func TestSpillRemovesStaleDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	sweepOnce = sync.Once{}
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	running := exec.Command("sleep", "30")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	defer running.Process.Kill()
	stale := filepath.Join(tmp, fmt.Sprintf("%s%d-1", spillDirPrefix, gone.Process.Pid))
	recent := filepath.Join(tmp, fmt.Sprintf("%s%d-2", spillDirPrefix, gone.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("%s%d-1", spillDirPrefix, running.Process.Pid))
	other := filepath.Join(tmp, spillDirPrefix+"x-1")
	dayAgo := time.Now().Add(-staleAfter - time.Hour)
	for _, d := range []string{stale, recent, live, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		part := filepath.Join(d, "part-000")
		if err := os.WriteFile(part, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if d != recent {
			os.Chtimes(part, dayAgo, dayAgo)
			os.Chtimes(d, dayAgo, dayAgo)
		}
	}
	set, err := Create("", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Remove()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the spill of a process gone is still there: %v", err)
	}
	for _, d := range []string{recent, live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if !strings.HasPrefix(filepath.Base(set.Dir()), fmt.Sprintf("%s%d-", spillDirPrefix, os.Getpid())) {
		t.Errorf("spill directory %s does not name this process", set.Dir())
	}
}
