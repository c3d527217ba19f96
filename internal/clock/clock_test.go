package clock_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
)

// TestOneClock: outside this package no non-test code reads the machine's
// clock (time.Now, or time.Since and time.Until, which read it too).
// Every judgement of time reads the Clock handed down from main, and
// elapsed time a Stopwatch.
func TestOneClock(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root: %v", err)
	}
	allowed := filepath.Join(root, "internal", "clock", "clock.go")
	var found []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == allowed {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, call := range wallReads(f) {
			found = append(found, fset.Position(call).String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("the machine's clock is read outside internal/clock (take the Clock handed down, or a clock.Stopwatch for elapsed time):\n%s",
			strings.Join(found, "\n"))
	}
}

// wallReads are the positions of time.Now, time.Since and time.Until in
// f, under whatever name f imports package time.
func wallReads(f *ast.File) []token.Pos {
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			name = "time"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var at []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && slices.Contains([]string{"Now", "Since", "Until"}, sel.Sel.Name) {
			at = append(at, sel.Pos())
		}
		return true
	})
	return at
}

// TestWallReadsFindsEveryForm: the scan behind TestOneClock sees a call, a
// function value and a renamed import, and nothing else.
func TestWallReadsFindsEveryForm(t *testing.T) {
	src := `package p
import (
	tm "time"
)
var f = tm.Now
func g(start tm.Time) { _ = tm.Since(start); _ = tm.Until(start); _ = tm.Now(); _ = tm.Unix(0, 0) }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(wallReads(f)); got != 4 {
		t.Errorf("%d reads of the clock found, want 4", got)
	}
}

func TestFixedAndZero(t *testing.T) {
	at := time.Date(2031, 6, 30, 12, 0, 0, 0, time.UTC)
	if got := clock.Fixed(at).Now(); !got.Equal(at) {
		t.Errorf("Fixed(%v).Now() = %v", at, got)
	}
	if (clock.Clock{}).Set() || !clock.System().Set() {
		t.Error("Set: the zero Clock tells no time, System does")
	}
	defer func() {
		if recover() == nil {
			t.Error("the zero Clock told a time")
		}
	}()
	clock.Clock{}.Now()
}

func TestStopwatchIgnoresTheClock(t *testing.T) {
	sw := clock.Start()
	time.Sleep(2 * time.Millisecond)
	if e := sw.Elapsed(); e < 2*time.Millisecond {
		t.Errorf("elapsed %v after a 2 ms sleep", e)
	}
}

// TestSleepEndsWithItsContext: a sleep on the machine's timers returns the
// context's error once it ends, whatever the wait asked.
func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Fixed(time.Unix(0, 0)).Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a sleep under a cancelled context returned %v", err)
	}
	if err := clock.System().Sleep(context.Background(), time.Nanosecond); err != nil {
		t.Errorf("a short sleep returned %v", err)
	}
}

// TestManualClockWakesOnAdvance: a sleeper on a Manual clock wakes when
// the test advances the time past its deadline, not before.
func TestManualClockWakesOnAdvance(t *testing.T) {
	m := clocktest.NewManual(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	c := m.Clock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a timeout, not an assertion
	defer cancel()
	woke := make(chan error, 1)
	go func() { woke <- c.Sleep(ctx, 2*time.Second) }()
	if err := m.WaitForSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	m.Advance(time.Second)
	if m.Sleepers() != 1 {
		t.Fatal("the sleeper woke a second early")
	}
	m.Advance(time.Second)
	if err := <-woke; err != nil {
		t.Errorf("woke with %v", err)
	}
	if got := c.Now(); !got.Equal(time.Date(2026, 12, 3, 12, 0, 2, 0, time.UTC)) {
		t.Errorf("the clock says %v after two seconds", got)
	}
	sctx, stop := context.WithCancel(ctx)
	go func() { woke <- c.Sleep(sctx, time.Hour) }()
	if err := m.WaitForSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-woke; !errors.Is(err, context.Canceled) || m.Sleepers() != 0 {
		t.Errorf("a cancelled sleeper returned %v and left %d sleeping", err, m.Sleepers())
	}
}
