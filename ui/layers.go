package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
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
	open := [layerList]bool{
		layerSearch:   m.layers.search.Typing(),
		layerCommand:  m.layers.cmdline.Shown(),
		layerWrite:    m.layers.write.Open(),
		layerMistakes: m.layers.mistakes.Shown(),
		layerHelp:     m.help.open,
		layerDetail:   m.layers.detail.Shown(),
		layerWriteLog: m.layers.writelog.Shown(),
	}
	for l := from; l < layerList; l++ {
		if open[l] {
			return l
		}
	}
	return layerList
}

// typing reports whether a field or a dialog takes the keys as text.
func (m *Model) typing() bool { return m.top(layerSearch) < layerHelp }

// pane is a layer as the root sees it (soft-serve's component): its keys
// for help, how it draws, how it takes a message, what the status line
// says over it, and how back closes it.
type pane struct {
	keys   help.KeyMap
	view   func() string
	update func(tea.Msg) tea.Cmd
	status func() string
	close  func()
}

// on is layer l as a pane.
func (m *Model) on(l layer) pane {
	ls, list := &m.layers, m.views.tab()
	p := pane{keys: list.component, view: list.View, status: list.status, close: func() { m.views.shown = viewAccounts },
		update: func(msg tea.Msg) tea.Cmd { return m.opened(list.update(msg), list.asked()) }}
	switch l {
	case layerSearch:
		p.keys, p.view = ls.search, ls.search.View
		p.update = func(msg tea.Msg) tea.Cmd {
			cmd := step(&ls.search, msg)
			m.filterShown()
			return cmd
		}
	case layerCommand:
		p.keys, p.view = ls.cmdline, ls.cmdline.View
		p.update = func(msg tea.Msg) tea.Cmd {
			k, ok := msg.(tea.KeyPressMsg)
			if !ok {
				return step(&ls.cmdline, msg) // a paste
			}
			next, cmd := m.onCommandKey(k) // enter runs what was typed
			*m = next.(Model)
			return cmd
		}
	case layerWrite:
		p.keys, p.view, p.status = ls.write, ls.write.View, ls.write.Status
		p.update = func(msg tea.Msg) tea.Cmd { return step(&ls.write, msg) }
	case layerMistakes:
		p.keys, p.view = ls.mistakes, ls.mistakes.View
		p.update = func(msg tea.Msg) tea.Cmd { return step(&ls.mistakes, msg) }
	case layerHelp:
		// Over help the status line says what the list does.
		p.keys, p.view, p.update = noKeys{}, m.helpScreen, m.pageHelp
		p.close = func() { m.help.open = false }
	case layerDetail:
		p.keys = ls.detail.KeyMap()
		p.view = func() string { return m.setup.st.Title.Render(ls.detail.Title) + "\n" + ls.detail.View() }
		p.update = func(msg tea.Msg) tea.Cmd { return step(&ls.detail, msg) }
		p.status = func() string {
			h := ls.detail.KeyMap().Close.Help()
			return h.Key + ": " + h.Desc
		}
		p.close = ls.detail.Close
	case layerWriteLog:
		p.keys, p.view, p.status, p.close = ls.writelog, ls.writelog.View, ls.writelog.Status, ls.writelog.Close
		p.update = func(msg tea.Msg) tea.Cmd { return step(&ls.writelog, msg) }
	}
	return p
}
