package pager

import "github.com/locktable/locktable/backend"

// A sweep reads every page at once, in the view's own read (the accounts
// view's G and n: one parallel scan of the table), handing the pager its
// rows in pages as they come. Meanwhile the pager asks for no page of its
// own; a page asked for before still lands (a row read twice is the
// look's to keep once). These are functions, not methods, so that Model
// exports no more.

// Sweep marks every page being read by a sweep (on), or no longer (off:
// stopped, or failed; the pages go on from where they stood).
func Sweep[P any, R comparable](m *Model[P, R], on bool) { m.paging.sweeping = on }

// Append keeps rows a sweep read, after those read, as a page's: the
// selection follows them as it follows a page's (to the end after G).
func Append[P any, R comparable](m *Model[P, R], rows []P) { m.took(rows) }

// Swept ends a sweep that read every page: nothing is left to read.
func Swept[P any, R comparable](m *Model[P, R]) {
	m.paging.sweeping, m.paging.swept, m.paging.next = false, true, backend.End()
	m.list.SetCursor(m.list.Cursor())
}

// SweepFailed ends a sweep that failed with err, as a page that failed:
// the rows read stay, and no page is asked for until Retry, which reads
// on from where the pages stood.
func SweepFailed[P any, R comparable](m *Model[P, R], err error) {
	m.paging.sweeping, m.paging.err, m.paging.failed = false, err, Failed
}
