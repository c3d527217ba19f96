package ui

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the views show now")

// tablePlaceholder stands for the random table name in golden files; it
// has the name's length, so that padding and truncation are unchanged.
const tablePlaceholder = "accounts-XXXXXXXX"

// tokenPattern is a ClientRequestToken (backend.NewToken), new for each
// preview; tokenPlaceholder, as long, stands for it in golden files.
var (
	tokenPattern     = regexp.MustCompile(`[0-9a-f]{32}`)
	tokenPlaceholder = strings.Repeat("T", 32)
)

// golden compares the screen, without colours and with the table name
// replaced, to testdata/NAME.golden byte for byte.
func (d *driver) golden(name string) {
	d.t.Helper()
	table := d.m.setup.schema.Table
	if len(table) != len(tablePlaceholder) {
		d.t.Fatalf("table name %q is not as long as %q", table, tablePlaceholder)
	}
	screen := tokenPattern.ReplaceAllLiteralString(strings.ReplaceAll(d.screen(), table, tablePlaceholder), tokenPlaceholder)
	got := []byte(screen + "\n")
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			d.t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			d.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		d.t.Fatalf("%v (run go test ./ui -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				d.t.Errorf("%s differs from the screen at line %d:\n got %q\nwant %q\nscreen:\n%s\n(run go test ./ui -update if the change is intended)", path, i+1, g, w, got)
				return
			}
		}
	}
}

// TestGoldenViews renders each view of the planted table at 100x30.
func TestGoldenViews(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	d.golden("accounts")

	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.settle()
	d.golden("locks")

	d.press("3")
	d.golden("problems")

	d.press("1", "enter") // ACCT#a1
	d.golden("detail_account")

	d.press("esc", "n", "enter") // ACCT#b2's username lock
	d.golden("detail_missing_lock")

	d.press("esc", "?")
	d.golden("help")
	// Help lists the keys of the view it is opened over, all of them.
	for _, want := range []string{"n next problem", "N previous problem", "e edit/rename account", "a add account"} {
		if !strings.Contains(fields(d.screen()), fields(want)) {
			t.Errorf("help does not list %q:\n%s", want, d.screen())
		}
	}
	d.press("?")
	if d.m.help.open || d.m.views.shown != viewAccounts {
		t.Errorf("? again: help open %v, view %d, want the accounts", d.m.help.open, d.m.views.shown)
	}
}

// TestGoldenSizes renders the list views, help and a write preview at the
// smallest size locktable draws, a classic terminal and a large one.
func TestGoldenSizes(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}, {120, 40}, {200, 50}} {
		name := func(view string) string { return fmt.Sprintf("%s_%dx%d", view, size[0], size[1]) }
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, size[0], size[1])
		d.ready()
		d.golden(name("accounts"))
		d.press("2")
		d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
		d.settle()
		d.golden(name("locks"))
		d.press("3")
		d.golden(name("problems"))
		d.press("1", "?")
		d.golden(name("help"))
		d.press("esc")
		pinAccount(d, "bob")
		d.press("down", "down", "f")
		waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob")
		d.golden(name("preview"))
	}
}
