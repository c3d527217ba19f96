package accounts

import (
	"context"
	"errors"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// TestAnswersBeforeAReloadAreDropped: a page asked for before a reload
// arrives after it, and is dropped; the reload's own page is shown.
func TestAnswersBeforeAReloadAreDropped(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	b := uitest.New(sc)
	b.Put(sc.Table, dynamotest.Account("ACCT#a1", "ada@x.io", "ada"))
	st := styles.New(true)
	m := New(context.Background(), b, uitest.NewSweeper(b), &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.Pager().SetSize(100, 26)

	stale := m.Init()
	b.Put(sc.Table, dynamotest.Account("ACCT#b2", "bob@x.io", "bob"))
	reload := m.Reload()
	m, _ = m.Update(stale())
	if m.pager.Count() != 0 || !m.Pager().Paging().Loading() {
		t.Fatalf("a page asked for before the reload was shown: %d accounts, loading %v", m.pager.Count(), m.Pager().Paging().Loading())
	}
	m, _ = m.Update(reload())
	if m.pager.Count() != 2 || m.Pager().Paging().Loading() {
		t.Errorf("the reload's page: %d accounts, loading %v; want 2, done", m.pager.Count(), m.Pager().Paging().Loading())
	}
}

// firstOf120 is the view on 120 accounts, u0 to u119, in pages of 50,
// and its first page read.
func firstOf120() (*uitest.Backend, Model) {
	sc := model.DefaultSchema(model.LayoutSingle)
	b := uitest.New(sc)
	for i := range 120 {
		b.Put(sc.Table, dynamotest.Account(fmt.Sprintf("ACCT#%03d", i), fmt.Sprintf("u%d@x.io", i), fmt.Sprintf("u%d", i)))
	}
	st := styles.New(true)
	m := New(context.Background(), b, uitest.NewSweeper(b), &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.Pager().SetSize(100, 10)
	m, _ = m.Update(m.Init()())
	return b, m
}

// TestFailedReadStopsPaging: after a page fails, moving asks for no more
// pages until Retry, as in every paged view (ui/pager); Retry reads the
// page again.
func TestFailedReadStopsPaging(t *testing.T) {
	b, m := firstOf120()
	if m.pager.Count() != 50 || m.Pager().Paging().Done() {
		t.Fatalf("first page: %d accounts, done %v; want 50, more", m.pager.Count(), m.Pager().Paging().Done())
	}
	b.Control.Fail("AccountsPage", errors.New("throttled"))
	b.Control.Fail("AccountsSweep", errors.New("throttled")) // G reads every account at once
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if cmd == nil {
		t.Fatal("the end of the rows asks for no page")
	}
	m, _ = m.Update(cmd())
	if m.Err() == nil {
		t.Fatal("the failed page is not the view's error")
	}
	calls := b.Control.Calls("AccountsPage")
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyUp}} {
		if m, cmd = m.Update(k); cmd != nil {
			m, _ = m.Update(cmd())
		}
	}
	if n := b.Control.Calls("AccountsPage") - calls; n != 0 {
		t.Errorf("after a failed read, moving read %d pages more, want none until r", n)
	}
	b.Control.Fail("AccountsPage", nil)
	m, _ = m.Update(m.Retry()())
	if m.Err() != nil || m.pager.Count() != 100 {
		t.Errorf("after the retry: err %v, %d accounts; want 100", m.Err(), m.pager.Count())
	}
}

// TestKeptFilterFollowsPagesAndPins: a filter kept while pages come
// keeps the accounts of each page that match, and judges again the rows
// on top when a pin replaces them, even one as long.
func TestKeptFilterFollowsPagesAndPins(t *testing.T) {
	b, m := firstOf120()
	m.Pager().SetFilter("1") // the last row it keeps on each page is near the page's end: G reads on
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	for cmd != nil {
		m, cmd = m.Update(cmd())
	}
	// 1, 10-19, 21, 31 ... 91, 100-119: 39 accounts, with their locks.
	if kept, of := m.Pager().Matched(); m.pager.Count() != 120 || kept != 39*3 || of != 120*3 {
		t.Fatalf("%d accounts read, the filter keeps %d rows of %d; want 120, 117 of 360", m.pager.Count(), kept, of)
	}
	pin := func(id string) {
		a, _, err := b.Account(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		m, _ = m.Update(PinMsg{Pin: Pin{Title: "found", Accounts: []model.AccountView{a}}})
	}
	pin("ACCT#001")
	if kept, _ := m.Pager().Matched(); kept != 40*3 {
		t.Errorf("u1 pinned: the filter keeps %d rows, want 120", kept)
	}
	pin("ACCT#002")
	if kept, _ := m.Pager().Matched(); kept != 39*3 {
		t.Errorf("u2 pinned instead: the filter keeps %d rows, want 117", kept)
	}
}
