package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/export"
)

// :export FILE writes the rows of the list view shown, under its filter
// and in its order, to FILE as CSV or JSON Lines by its extension
// (export.Write); :export! FILE writes over a file that exists.

// exporter is a list view whose rows :export writes.
type exporter interface{ Export() export.Table }

// exportedMsg says how an :export went: rows written to path, or why not.
type exportedMsg struct {
	path  string
	rows  int
	force bool
	err   error
}

// exportShown takes the rows of the view shown, and writes them off the
// update loop.
func (m Model) exportShown(path string, force bool) (Model, tea.Cmd) {
	if _, err := export.FormatOf(path); err != nil {
		m.status = "not exported: " + err.Error()
		return m, nil
	}
	e, ok := m.views.tab().component.(exporter)
	if !ok {
		m.status = "not exported: this view has no rows to export"
		return m, nil
	}
	t := e.Export()
	m.status = "exporting " + model.Quote(path) + "…"
	return m, func() tea.Msg {
		full, err := expandHome(path)
		if err == nil {
			err = export.Write(full, t, force)
		}
		return exportedMsg{path: full, rows: len(t.Rows), force: force, err: err}
	}
}

// onExported says in the status line where the rows went, or why not.
func (m Model) onExported(msg exportedMsg) Model {
	path := model.Quote(msg.path)
	switch {
	case errors.Is(msg.err, export.ErrExists):
		m.status = fmt.Sprintf("not exported: %s exists; :export! %s writes over it", path, model.Printable(msg.path))
	case msg.err != nil:
		m.status = "not exported: " + errText(msg.err)
	default:
		noun := "rows"
		if msg.rows == 1 {
			noun = "row"
		}
		m.status = fmt.Sprintf("exported %d %s to %s", msg.rows, noun, path)
	}
	return m
}

// expandHome is path with a leading ~/ as the user's home.
func expandHome(path string) (string, error) {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home for ~: %w", err)
	}
	return filepath.Join(home, rest), nil
}
