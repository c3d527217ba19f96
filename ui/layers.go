package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/ui/writelog"
)

// layers are what can be open over the list views: the filter field, the
// command line, the write dialog, the menu of mistakes, the detail and
// the writes log (help is the helpScreen).
type layers struct {
	search   search.Model
	cmdline  command.Model
	write    write.Model
	batch    batch.Model // fixes of many problems, or their undo
	mistakes mistakes.Model
	detail   detail.Model
	writelog writelog.Model
	// shownRef is the key of the item the detail shows (nil: none), for
	// the copy keys.
	shownRef *model.KeyRef
	// tables are the endpoint's, for :table (nil until listed, or when
	// they cannot be), listing while they are being read.
	tables  []string
	listing bool
}

// layer is what can be on top, in the order of precedence: the first one
// open, from the top, takes the keys and is drawn.
type layer int

const (
	// The fields typed into: they take every key but ctrl+c, and are
	// drawn on the bottom line, over the status.
	layerSearch layer = iota
	layerCommand
	// The layers drawn over the list view, the first open on top.
	layerWrite
	layerBatch // typed into too: the number of transactions
	layerMistakes
	layerHelp
	layerDetail
	layerWriteLog
	layerList // nothing open: the list view shown
)

// top is the layer on top, looking down from layer from. This is the one
// place that orders them: from layerSearch it is what takes the keys,
// from layerWrite what is drawn over the list, from layerHelp the pane
// that the keys the root does not take and the wheel go to.
func (m *Model) top(from layer) layer {
	for l := from; l < layerList; l++ {
		if m.isOpen(l) {
			return l
		}
	}
	return layerList
}

// isOpen reports whether layer l is open; asked lazily, top first, as
// top is asked several times a frame.
func (m *Model) isOpen(l layer) bool {
	switch l {
	case layerSearch:
		return m.layers.search.Typing()
	case layerCommand:
		return m.layers.cmdline.Shown()
	case layerWrite:
		return m.layers.write.Open()
	case layerBatch:
		return m.layers.batch.Open()
	case layerMistakes:
		return m.layers.mistakes.Shown()
	case layerHelp:
		return m.help.open
	case layerDetail:
		return m.layers.detail.Shown()
	}
	return m.layers.writelog.Shown()
}

// dialogOver reports whether the write dialog is drawn over layer l: what
// l would show, read after the key that asked for it (a detail), is
// dropped rather than shown, or changed, under the dialog.
func (m *Model) dialogOver(l layer) bool { return l > layerWrite && m.top(layerWrite) == layerWrite }

// typing reports whether a field or a dialog takes the keys as text.
func (m *Model) typing() bool { return m.top(layerSearch) < layerHelp }

// pane is a layer as the root sees it (soft-serve's component): its keys
// for help, how it draws, how it takes a message, what the status line
// says over it, and how back closes it. It asks the layer's widget in
// place: a pane is asked for several times a frame, and copies nothing of
// the root.
type pane struct {
	m *Model
	l layer
}

// on is layer l as a pane.
func (m *Model) on(l layer) pane { return pane{m, l} }

// keys are the layer's bindings, for help.
func (p pane) keys() help.KeyMap {
	ls := &p.m.layers
	switch p.l {
	case layerSearch:
		return ls.search
	case layerCommand:
		return ls.cmdline
	case layerWrite:
		return ls.write
	case layerBatch:
		return ls.batch
	case layerMistakes:
		return ls.mistakes
	case layerHelp:
		return noKeys{}
	case layerDetail:
		return ls.detail.KeyMap()
	case layerWriteLog:
		return ls.writelog
	}
	return p.m.views.tab().component
}

// view draws the layer: over the list, or on the bottom line (a field).
func (p pane) view() string {
	ls := &p.m.layers
	switch p.l {
	case layerSearch:
		return ls.search.View()
	case layerCommand:
		return ls.cmdline.View()
	case layerWrite:
		return ls.write.View()
	case layerBatch:
		return ls.batch.View()
	case layerMistakes:
		return ls.mistakes.View()
	case layerHelp:
		return p.m.helpScreen()
	case layerDetail:
		return p.m.setup.st.Title.Render(ls.detail.Title) + "\n" + ls.detail.View()
	case layerWriteLog:
		return ls.writelog.View()
	}
	return p.m.views.tab().View()
}

// status is what the status line says over a pane (help, the detail,
// the writes log, the list): over help, what the list does.
func (p pane) status() string {
	switch p.l {
	case layerDetail:
		h := p.m.layers.detail.KeyMap().Close.Help()
		return h.Key + ": " + h.Desc
	case layerWriteLog:
		return p.m.layers.writelog.Status()
	}
	return p.m.views.tab().Status()
}

// update hands the layer a key, a paste or the wheel.
func (p pane) update(msg tea.Msg) tea.Cmd {
	m, ls := p.m, &p.m.layers
	switch p.l {
	case layerSearch:
		cmd := step(&ls.search, msg)
		m.filterShown()
		return cmd
	case layerCommand:
		k, ok := msg.(tea.KeyPressMsg)
		if !ok {
			return step(&ls.cmdline, msg) // a paste
		}
		next, cmd := m.onCommandKey(k) // enter runs what was typed
		*m = next.(Model)
		return cmd
	case layerWrite:
		return step(&ls.write, msg)
	case layerBatch:
		return step(&ls.batch, msg)
	case layerMistakes:
		return step(&ls.mistakes, msg)
	case layerHelp:
		return m.pageHelp(msg)
	case layerDetail:
		return step(&ls.detail, msg)
	case layerWriteLog:
		return step(&ls.writelog, msg)
	}
	t := m.views.tab()
	cmd := t.update(msg)
	asked := t.asked()
	m.views.put(t)
	return m.opened(cmd, asked)
}

// close closes a pane: back from the list view shown is the accounts.
func (p pane) close() {
	switch p.l {
	case layerHelp:
		p.m.help.open = false
	case layerDetail:
		p.m.layers.detail.Close()
	case layerWriteLog:
		p.m.layers.writelog.Close()
	default:
		p.m.views.shown = viewAccounts
	}
}
