package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
)

// osc52 ends what a copy says: the terminal may refuse it.
const osc52 = "to the clipboard, if the terminal allows it (OSC 52)"

// copyKey copies key k as text that is safe to paste: escaped
// (model.EscapeText) when it holds control characters or bidi overrides,
// which pasted into a shell could run a line or hide what follows. The
// status says so, and which key copies the exact bytes.
func (m Model) copyKey(k string) (Model, tea.Cmd) {
	odd := model.Oddities(k)
	if model.Printable(k) == k && odd == "" {
		m.status = "copied " + k + " " + osc52
		return m, tea.SetClipboard(k)
	}
	text := model.EscapeText(k)
	if odd == "" {
		odd = "characters a terminal hides"
	}
	m.status = fmt.Sprintf("copied the key escaped, %s %s: it holds %s; %s copies its exact bytes", text, osc52, odd, m.setup.km.CopyExact.Help().Key)
	return m, tea.SetClipboard(text)
}

// copyExact copies key k's exact bytes: at once when they are plain text,
// otherwise once the key is pressed again right after it asked (asked is
// the key it asked about, "" for none).
func (m Model) copyExact(k, asked string) (Model, tea.Cmd) {
	odd := model.Oddities(k)
	if model.Printable(k) == k && odd == "" {
		m.status = "copied " + k + " " + osc52 + " (nothing in it to escape)"
		return m, tea.SetClipboard(k)
	}
	if odd == "" {
		odd = "characters a terminal hides"
	}
	if asked != k {
		m.exactAsked = k
		m.status = fmt.Sprintf("%s holds %s: pasted into a shell, its exact bytes may run a line or hide text. %s again copies them; any other key does not",
			model.EscapeText(k), odd, m.setup.km.CopyExact.Help().Key)
		return m, nil
	}
	m.status = fmt.Sprintf("copied the exact bytes of %s (%d bytes, with %s) %s", model.EscapeText(k), len(k), odd, osc52)
	return m, tea.SetClipboard(k)
}
