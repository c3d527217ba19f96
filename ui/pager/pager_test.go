package pager_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// table is a list of names read a page at a time; err fails every read
// while set. reads counts the reads.
type table struct {
	names []string
	err   error
	reads int
}

func (t *table) read(_ context.Context, from backend.Cursor, want int) (pager.Page[string], error) {
	t.reads++
	if t.err != nil {
		return pager.Page[string]{}, t.err
	}
	end := min(from.Pos()+want, len(t.names))
	return pager.Page[string]{Rows: t.names[from.Pos():end], Next: backend.At(end, end == len(t.names))}, nil
}

// look shows a name as its key; it keeps names in upper case, as a view
// keeps what it read in its own form.
type look struct{}

func (look) Keep(dst []string, name string) []string { return append(dst, strings.ToUpper(name)) }
func (look) Cells(name string) rows.Cells            { return rows.Cells{Key: name, Status: "ok"} }
func (look) Match(name string, q string) bool        { return browser.Contains(name, q) }
func (look) Empty() string                           { return "no names" }

func names(n int) *table {
	t := &table{}
	for i := range n {
		t.names = append(t.names, fmt.Sprintf("name%02d", i))
	}
	return t
}

// newPager is a pager over t, 2 rows high: pages of 6.
func newPager(t *table) pager.Model[string, string] {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	m := pager.New(context.Background(), t.read, pager.Look[string, string](look{}), &rows.Renderer{Schema: &sc, Styles: &st}, browser.DefaultKeyMap())
	m.SetSize(40, 2)
	return m
}

// run feeds cmd's message to m, if there is a command.
func run(m pager.Model[string, string], cmd tea.Cmd) pager.Model[string, string] {
	if cmd != nil {
		m, _ = m.Update(cmd())
	}
	return m
}

var down = tea.KeyPressMsg{Code: tea.KeyDown}

func view(m pager.Model[string, string]) string { return ansi.Strip(m.View()) }

// TestReadsOnceShownAndAhead: nothing is read before Show; then a few
// screens, and more as the selection nears their end; the rows are kept
// as Look keeps them.
func TestReadsOnceShownAndAhead(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	if m.Prefetch() != nil || tb.reads != 0 {
		t.Fatal("read before it was shown")
	}
	m = run(m, m.Show())
	if m.Count() != 6 || m.Paging().Done() || !strings.Contains(view(m), "NAME00") {
		t.Fatalf("first page: %d rows, done %v:\n%s", m.Count(), m.Paging().Done(), view(m))
	}
	var cmd tea.Cmd
	for range 3 {
		m, cmd = m.Update(down)
		m = run(m, cmd)
	}
	if m.Count() != 12 {
		t.Errorf("after moving down: %d rows, want 12", m.Count())
	}
	if s := m.Status("names loaded"); !strings.Contains(s, "row 4 of 12") || !strings.Contains(s, "12 names loaded, more below") {
		t.Errorf("status %q", s)
	}
}

// TestAnswerBeforeReloadDropped: a page asked for before a reload is
// dropped when it comes after it.
func TestAnswerBeforeReloadDropped(t *testing.T) {
	tb := names(3)
	m := newPager(tb)
	stale := m.Show()
	reload := m.Reload()
	m = run(m, stale)
	if m.Count() != 0 {
		t.Fatalf("an answer from before the reload was kept: %d rows", m.Count())
	}
	m = run(m, reload)
	if m.Count() != 3 || !m.Paging().Done() {
		t.Errorf("the reload's page: %d rows, done %v", m.Count(), m.Paging().Done())
	}
}

// TestFailedPageStopsReading: a failed page is the pager's error, the
// rows read stay and are not stale; no page is read until Retry, which
// reads the page again.
func TestFailedPageStopsReading(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	m = run(m, m.Show())
	tb.err = errors.New("throttled")
	var cmd tea.Cmd
	for range 5 {
		m, cmd = m.Update(down)
		m = run(m, cmd)
	}
	if m.Paging().Err() == nil || m.Paging().Stale() != nil || m.Count() != 6 {
		t.Fatalf("err %v, stale %v, %d rows; want the error, not stale, 6", m.Paging().Err(), m.Paging().Stale(), m.Count())
	}
	if tb.reads != 2 {
		t.Errorf("%d reads, want 2: the first page, and the failed one once, not again until Retry", tb.reads)
	}
	tb.err = nil
	m = run(m, m.Retry())
	if m.Paging().Err() != nil || m.Count() != 12 {
		t.Errorf("after Retry: err %v, %d rows; want 12", m.Paging().Err(), m.Count())
	}
	if m.Retry() != nil {
		t.Error("Retry with nothing failed reads")
	}
}

// TestFailedReloadKeepsTheRowsStale: a reload whose first page fails
// keeps the rows, said to be stale above them (the list gives way), and
// reads no more; Retry reloads, and the rows are fresh again.
func TestFailedReloadKeepsTheRowsStale(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	m.SetSize(40, 4)
	m = run(m, m.Show())
	tb.err = errors.New("throttled")
	m = run(m, m.Reload())
	v := view(m)
	if m.Count() != 12 || m.Paging().Stale() == nil || !strings.Contains(v, "stale") || !strings.Contains(v, "NAME00") {
		t.Fatalf("after a failed reload: %d rows, stale %v:\n%s", m.Count(), m.Paging().Stale(), v)
	}
	if lines := strings.Split(v, "\n"); len(lines) != 4 {
		t.Errorf("the stale rows and why take %d lines, want the pager's 4:\n%s", len(lines), v)
	}
	reads := tb.reads
	var cmd tea.Cmd
	for range 12 {
		m, cmd = m.Update(down)
		m = run(m, cmd)
	}
	if tb.reads != reads {
		t.Errorf("stale rows read %d pages more, want none until Retry", tb.reads-reads)
	}
	tb.err, tb.names = nil, tb.names[1:]
	m = run(m, m.Retry())
	if v = view(m); m.Paging().Stale() != nil || strings.Contains(v, "stale") || !strings.Contains(v, "NAME01") || strings.Contains(v, "NAME00") {
		t.Errorf("after Retry: stale %v:\n%s", m.Paging().Stale(), v)
	}
}

// TestBottomFollowsTheEnd: G keeps the last row selected as pages come.
func TestBottomFollowsTheEnd(t *testing.T) {
	tb := names(30)
	m := newPager(tb)
	m = run(m, m.Show())
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	for cmd != nil {
		m, cmd = m.Update(cmd())
	}
	if got, ok := m.Selected(); !ok || got != "NAME29" || !m.Paging().Done() {
		t.Errorf("after G: %q selected, done %v; want the last, NAME29", got, m.Paging().Done())
	}
}

// TestNoneSaysSo: a table with no row says so; while pages that find
// none read on, it says none so far.
func TestNoneSaysSo(t *testing.T) {
	m := newPager(names(0))
	m = run(m, m.Show())
	if v := view(m); !strings.Contains(v, "no names") || strings.Contains(v, "so far") {
		t.Errorf("an empty table: %q", v)
	}
	if _, ok := m.Selected(); ok {
		t.Error("a row is selected in an empty table")
	}
	sparse := func(_ context.Context, from backend.Cursor, _ int) (pager.Page[string], error) {
		return pager.Page[string]{Next: backend.At(from.Pos()+1, false)}, nil
	}
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	m = pager.New(context.Background(), sparse, pager.Look[string, string](look{}), &rows.Renderer{Schema: &sc, Styles: &st}, browser.DefaultKeyMap())
	m.SetSize(40, 2)
	m, cmd := m.Update(m.Show()())
	if v := view(m); cmd == nil || !strings.Contains(v, "no names so far") {
		t.Errorf("none found yet, reading on %v: %q", cmd != nil, v)
	}
}

// TestFilterAndSeek: a filter keeps the rows that show its text, pages
// that come after it are judged by it; Seek moves among the rows kept.
func TestFilterAndSeek(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	m = run(m, m.Show())
	m.SetFilter("1")
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	for cmd != nil {
		m, cmd = m.Update(cmd())
	}
	if kept, of := m.Matched(); kept != 11 || of != 20 {
		t.Errorf("the filter kept %d of %d, want 11 of 20", kept, of)
	}
	m.SetFilter("")
	m, _ = m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if !m.Seek(+1, func(name string) bool { return strings.HasSuffix(name, "7") }) {
		t.Fatal("no row ends in 7")
	}
	if got, _ := m.Selected(); got != "NAME07" {
		t.Errorf("seek selected %q, want NAME07", got)
	}
}

// TestNothingSaidBeforeTheFirstPage: shown, before its first page is
// read, a pager says nothing yet (the status says loading), not "none so
// far": none was read.
func TestNothingSaidBeforeTheFirstPage(t *testing.T) {
	m := newPager(names(20))
	cmd := m.Show()
	if v := view(m); strings.Contains(v, "no names") {
		t.Errorf("before the first page: %q", v)
	}
	if m = run(m, cmd); !strings.Contains(view(m), "NAME00") {
		t.Errorf("after it: %q", view(m))
	}
}

// TestHeadStaysOnTop: rows a view sets on top of those read stay there as
// pages come and a reload replaces the rows read; the row selected stays
// selected as the head grows, and a filter judges the head again when it
// changes.
func TestHeadStaysOnTop(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	m = run(m, m.Show())
	m, _ = m.Update(down)
	m.SetHead([]string{"PINNED-A"})
	if got, _ := m.Selected(); got != "NAME01" || m.Len() != 1+m.Count() {
		t.Fatalf("a head set: %q selected, %d rows for %d read; want NAME01, one more", got, m.Len(), m.Count())
	}
	m.SetHead([]string{"PINNED-A", "PINNED-B"})
	if got, _ := m.Selected(); got != "NAME01" {
		t.Errorf("the head grew: %q selected, want NAME01 still", got)
	}
	m.SetCursor(0)
	m = run(m, m.Reload())
	if got, _ := m.Selected(); got != "PINNED-A" || m.Count() != 6 {
		t.Errorf("reloaded: %q selected, %d read; want the head's row kept selected, 6", got, m.Count())
	}
	m.SetFilter("pinned-b")
	if kept, _ := m.Matched(); kept != 1 {
		t.Fatalf("the filter kept %d rows, want the head's one", kept)
	}
	m.SetHead([]string{"PINNED-C"})
	if kept, _ := m.Matched(); kept != 0 {
		t.Errorf("a head set anew: the filter kept %d rows, want none", kept)
	}
}

// TestMoreReadsOnNow: More reads the next page however many rows are
// below the selection (a view looking further down), but not while one is
// read, nor after a failed read.
func TestMoreReadsOnNow(t *testing.T) {
	tb := names(20)
	m := newPager(tb)
	m = run(m, m.Show())
	if m.Prefetch() != nil {
		t.Fatal("a prefetch with a few screens loaded")
	}
	cmd := m.More()
	if cmd == nil || m.More() != nil {
		t.Fatalf("More: %v; again while reading: want none", cmd != nil)
	}
	if m = run(m, cmd); m.Count() != 12 {
		t.Errorf("after More: %d read, want 12", m.Count())
	}
	tb.err = errors.New("throttled")
	m = run(m, m.More())
	if m.More() != nil {
		t.Error("More after a failed read, before Retry")
	}
}
