package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/textfield"
)

// KeyMap is the dialog's bindings. Which of them work, and what esc does,
// depend on the stage: keys says so, and help follows it.
type KeyMap struct {
	Next, Prev key.Binding // form: the next and previous field
	Preview    key.Binding // form: plan and prepare the request
	Send       key.Binding // preview: send it
	// SendTyped sends where the preview asks for the key typed back, and
	// Send's keys may be text.
	SendTyped key.Binding
	Up, Down  key.Binding // preview: scroll the request
	PageUp    key.Binding
	PageDown  key.Binding
	Resend    key.Binding // an unknown outcome: send again, same token
	Copy      key.Binding // preview or result: the request to the clipboard
	Save      key.Binding // preview or result: the request to a file
	Close     key.Binding // result or nothing to send: close
	Back      key.Binding // esc: back to the form, or close
}

// DefaultKeyMap returns the dialog's bindings.
func DefaultKeyMap() KeyMap {
	nav := browser.DefaultKeyMap()
	return KeyMap{
		Next:      key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		Prev:      key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		Preview:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "preview")),
		Send:      key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter/y", "send")),
		SendTyped: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Up:        key.NewBinding(key.WithKeys(nav.Up.Keys()...), key.WithHelp("↑↓", "scroll")),
		Down:      nav.Down,
		PageUp:    nav.PageUp,
		PageDown:  nav.PageDown,
		Resend:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send again (same token: a no-op if it committed)")),
		Close:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "close")),
		// c and w where keys are not text; ctrl+y and ctrl+s also where
		// they are (a key typed back).
		Copy: key.NewBinding(key.WithKeys("c", "ctrl+y"), key.WithHelp("c", "copy request")),
		Save: key.NewBinding(key.WithKeys("w", "ctrl+s"), key.WithHelp("w", "save request")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// keys are the bindings as they work at the dialog's stage, the others
// disabled, esc said as what it does.
func (m Model) keys() KeyMap {
	k := m.km
	all := []*key.Binding{&k.Next, &k.Prev, &k.Preview, &k.Send, &k.SendTyped, &k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Resend, &k.Close, &k.Back, &k.Copy, &k.Save}
	on := map[*key.Binding]bool{}
	form := len(m.fields) > 0
	switch m.Stage {
	case StageForm:
		on[&k.Next], on[&k.Prev], on[&k.Preview], on[&k.Back] = true, true, true, true
	case StagePreview:
		on[&k.Back] = true
		on[&k.Up], on[&k.Down], on[&k.PageUp], on[&k.PageDown] = true, true, true, true
		on[&k.Copy], on[&k.Save] = true, true
		if m.tx.Plan.MustType != "" {
			// Typed back: y, c and w are text, and the keys edit the
			// answer; only the keys that cannot be typed scroll, copy
			// and save.
			on[&k.SendTyped] = true
			for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Copy, &k.Save} {
				*b = untyped(*b)
				on[b] = len(b.Keys()) > 0
			}
		} else {
			on[&k.Send] = true
		}
		if form {
			k.Back.SetHelp(k.Back.Help().Key, "back")
		}
	case StageResult:
		on[&k.Close], on[&k.Back] = true, true
		long := m.outcomeLong() // scrolled when longer than the dialog
		on[&k.Up], on[&k.Down], on[&k.PageUp], on[&k.PageDown] = long, long, long, long
		on[&k.Resend] = m.result.Outcome == model.Unknown || m.result.Outcome == model.NotSent
		on[&k.Copy], on[&k.Save] = m.tx != nil, m.tx != nil
		if form && m.result.Outcome != model.Committed {
			k.Back.SetHelp(k.Back.Help().Key, "edit and retry")
		} else {
			k.Back.SetHelp(k.Back.Help().Key, "close")
		}
	case StageSkipped:
		on[&k.Close], on[&k.Back] = true, true
		long := m.outcomeLong() // scrolled when longer than the dialog
		on[&k.Up], on[&k.Down], on[&k.PageUp], on[&k.PageDown] = long, long, long, long
		k.Back.SetHelp(k.Back.Help().Key, "close")
	}
	for _, b := range all {
		b.SetEnabled(on[b])
	}
	return k
}

// ShortHelp is the help line for the dialog's stage.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys()
	// The line drops from the end: how to go back stays before scrolling
	// and copying, which the preview's own text also says.
	return []key.Binding{k.Next, k.Preview, k.Send, k.SendTyped, k.Resend, k.Close, k.Back, k.Up, k.Copy, k.Save}
}

// FullHelp is every binding that works at the dialog's stage.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys()
	return [][]key.Binding{{k.Next, k.Prev, k.Preview, k.Send, k.SendTyped, k.Resend, k.Close, k.Back}, {k.Up, k.PageUp, k.PageDown, k.Copy, k.Save}}
}

// untyped is b without the keys that are text (a letter, a digit, space)
// or edit it (ctrl+u, ctrl+b, ctrl+f: textfield.Keys), its help naming the
// keys left.
func untyped(b key.Binding) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if len([]rune(k)) > 1 && k != "space" && !textfield.Edits(k) {
			keys = append(keys, k)
		}
	}
	h := b.Help()
	if len(keys) < len(b.Keys()) && h.Key != "↑↓" {
		h.Key = strings.Join(keys, "/")
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h.Key, h.Desc))
}
