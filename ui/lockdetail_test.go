package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/uitest"
)

// TestLockDetailIsOneWherever: the locks view's detail of a lock had no
// working c and C (it read nothing), no why: line, and the TTL only as a
// raw epoch; the same lock opened from the accounts view had all three.
// A lock's detail is the same from either view, and c and C copy it.
func TestLockDetailIsOneWherever(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		store func() *uitest.Backend
		lock  string
		says  string
	}{
		{"ok", fakePlanted, "UNIQ#HANDLE#ada", "ok: ACCT#a1 holds username = ada"},
		{"foreign", fakePlanted, "UNIQ#EMAIL#carol@x.io", "why: foreign_lock"},
		{"duplicate", fakePlanted, "UNIQ#EMAIL#dup@x.io", "why: duplicate_value"},
		{"expired", func() *uitest.Backend { return fakeTTL() }, "UNIQ#EMAIL#ada@x", "expired 3 h ago"},
		{"reserved", func() *uitest.Backend { return fakeTTL() }, "UNIQ#EMAIL#trial@x", "reserved 1 h more"},
		{"orphan", fakePlanted, "UNIQ#EMAIL#old@x.io", "why: orphan_lock"},
		{"expired orphan", func() *uitest.Backend { return fakeTTL() }, "UNIQ#EMAIL#gone@x", "why: expired_lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := newDriver(t, Options{Roles: roles(c.store())}, 120, 40)
			d.ready()
			d.press("g") // the locks nobody holds are above the accounts
			d.selectRow(c.lock + " ")
			d.press("enter")
			waitScreen(d, "the lock's detail from the accounts", c.says)
			fromAccounts := d.lines()[2 : len(d.lines())-2]
			d.press("esc", "2")
			d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
			d.settle()
			d.selectRow(c.lock + " ")
			d.press("enter")
			d.until("the lock's detail from the locks", func(m *Model) bool { return m.layers.detail.Shown() })
			d.settle()
			fromLocks := d.lines()[2 : len(d.lines())-2]
			if strings.Join(fromLocks, "\n") != strings.Join(fromAccounts, "\n") {
				t.Errorf("the detail from the locks view:\n%s\nfrom the accounts view:\n%s", strings.Join(fromLocks, "\n"), strings.Join(fromAccounts, "\n"))
			}
			if f := d.footer(); !strings.Contains(f, "c copy key") || !strings.Contains(f, "C copy item") {
				t.Errorf("the locks view's detail offers %q, want c and C", f)
			}
			d.press("C")
			if !strings.Contains(d.clipboard, c.lock) {
				t.Errorf("C copied %q, want the lock's item", d.clipboard)
			}
		})
	}
}
