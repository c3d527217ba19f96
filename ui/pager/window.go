package pager

import "github.com/locktable/locktable/backend"

// A view whose rows do not all fit in memory holds a window of them in
// the list (the accounts view: blocks of accounts, the rest on disk) and
// moves it as the selection nears its edges. These are functions, not
// methods, so that Model exports no more.

// Hold stops the pager reading pages of its own (on): the rows after
// those read are kept by the view, which puts them back first; off, it
// reads on from where the pages stood.
func Hold[P any, R comparable](m *Model[P, R], on bool) { m.window = on }

// Slide replaces the rows read with rows, the selected row staying
// selected where it is on screen: delta rows were put (+) or taken (-)
// above it. The columns keep their widths; the rows not held before
// (all of them, with put set: rows came in front) are measured.
func Slide[P any, R comparable](m *Model[P, R], rows []R, delta int, put bool) {
	m.src.read = rows
	m.src.arrange(0)
	m.src.generation++
	if put {
		m.src.screen.Rehold()
	} else {
		m.src.screen.Shift(delta)
	}
	m.list.Shift(delta)
}

// Reselect selects row i, the row that was selected, moved by a change of
// the rows around it (the rows on top, rows gone): the selection has not
// moved, and G still follows the end as pages come.
func Reselect[P any, R comparable](m *Model[P, R], i int) { m.list.SetCursor(i) }

// Append keeps rows the view read itself, after those read, as a page's
// (a sweep: the accounts view reads every page at once): the selection
// follows them to the end after G.
func Append[P any, R comparable](m *Model[P, R], rows []P) { m.took(rows) }

// Swept says every page is read (a sweep ended): none is asked for again,
// and a page asked for before adds its rows and no more.
func Swept[P any, R comparable](m *Model[P, R]) {
	m.paging.swept, m.paging.next = true, backend.End()
	m.list.SetCursor(m.list.Cursor())
}

// Stream says rows come faster than frames (on: a sweep hands the view
// every account), most of them leaving the list (a window) before they
// are seen: the columns are measured over the rows shown only, and over
// every row held again once it ends (off). Measuring each row as it came
// cost a tenth of a sweep's time.
func Stream[P any, R comparable](m *Model[P, R], on bool) {
	m.src.streaming = on
	if !on {
		m.src.screen.Rehold()
	}
}
