package model

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpillRemovesStaleDirs: the first spill of a process removes the
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
	s := DefaultSchema(LayoutSingle)
	c := spillingCensus(&s)
	defer c.Close()
	for _, r := range randomRows(rand.New(rand.NewPCG(1, 1)), &s, 20) {
		c.Add(r.table, r.item)
	}
	if c.Spilled().Spills == 0 {
		t.Fatal("the census did not spill")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the spill of a process gone is still there: %v", err)
	}
	for _, d := range []string{recent, live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if !strings.HasPrefix(filepath.Base(c.spill.dir), fmt.Sprintf("%s%d-", spillDirPrefix, os.Getpid())) {
		t.Errorf("spill directory %s does not name this process", c.spill.dir)
	}
}

// TestSpillFileGone: a partition file removed under a census that wrote to
// it is an error when reconciled, never a partition of no value.
func TestSpillFileGone(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := DefaultSchema(LayoutSingle)
	c := spillingCensus(&s)
	defer c.Close()
	for _, r := range randomRows(rand.New(rand.NewPCG(2, 2)), &s, 50) {
		c.Add(r.table, r.item)
	}
	if err := c.readable(); err != nil {
		t.Fatal(err)
	}
	removed := false
	for _, p := range c.spill.parts {
		if p.created && !removed {
			removed = os.Remove(p.path) == nil
		}
	}
	if !removed {
		t.Fatal("no partition file to remove")
	}
	if _, err := c.Reconcile(); err == nil || !strings.Contains(err.Error(), "read back the census") {
		t.Errorf("a partition file gone: Reconcile() error %v, want one", err)
	}
}
