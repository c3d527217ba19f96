package dialog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/styles"
)

func press(m dialog.Model, keys ...tea.KeyPressMsg) dialog.Model {
	for _, k := range keys {
		m, _ = m.Update(k)
	}
	return m
}

func typed(s string) []tea.KeyPressMsg {
	var ks []tea.KeyPressMsg
	for _, r := range s {
		ks = append(ks, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return ks
}

// wantFits fails for a line of v wider than width.
func wantFits(t *testing.T, v string, width int) {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("a line is %d cells, the dialog %d: %q", w, width, ansi.Strip(l))
		}
	}
}

// cancelled is a result whose slots fail with long actions.
func cancelled(slots int) model.Result {
	r := model.Result{Operation: "rename", Outcome: model.Cancelled, Token: strings.Repeat("t", 32)}
	for i := range slots {
		r.Reasons = append(r.Reasons, model.Reason{Slot: i, Code: "ConditionalCheckFailed",
			Action:  fmt.Sprintf("put lock UNIQ#EMAIL#margaret.%d@example.org only if the item does not exist, so that the value is free", i),
			Message: "the lock exists: ACCT#82f8634a holds it"})
	}
	return r
}

// TestOutcomeWrapsBetweenWords: a slot's action was wrapped to the width
// and then indented, so the terminal cut its lines' ends ("... if th" /
// "free"): every line fits and every word is there.
func TestOutcomeWrapsBetweenWords(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "rename ACCT#a1", nil)
	m.SetSize(80, 22)
	r := cancelled(1)
	m.SetResult(r)
	v := m.View()
	wantFits(t, v, 80)
	words := strings.Join(strings.Fields(ansi.Strip(v)), " ")
	if !strings.Contains(words, r.Reasons[0].Action) {
		t.Errorf("the action lost words:\n%s", ansi.Strip(v))
	}
}

// TestLongOutcomeScrolls: an outcome longer than the dialog could not be
// scrolled; its last slot was out of reach.
func TestLongOutcomeScrolls(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "rename ACCT#a1", nil)
	m.SetSize(80, 12)
	m.SetResult(cancelled(6))
	if n := strings.Count(m.View(), "\n"); n > 12 {
		t.Errorf("the outcome takes %d lines of 12", n)
	}
	last := "margaret.5@example.org"
	if strings.Contains(ansi.Strip(m.View()), last) {
		t.Fatalf("the last slot fits already:\n%s", ansi.Strip(m.View()))
	}
	for range 30 {
		m = press(m, tea.KeyPressMsg{Code: tea.KeyDown})
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, last) {
		t.Errorf("down does not reach the last slot:\n%s", v)
	}
	if n := strings.Count(m.View(), "\n"); n > 12 {
		t.Errorf("scrolled, the outcome takes %d lines of 12", n)
	}
}

// TestFieldErrorSaidOnceAndCleared: enter on a bad value said "error:
// account: account: ...", and the error stayed once the value was fixed.
func TestFieldErrorSaidOnceAndCleared(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	field := dialog.NewField("account", "", func(v string) error {
		if strings.Contains(v, "!") {
			return &model.FieldError{Field: "account", Msg: "no ! please"}
		}
		if v == "" {
			return errors.New("account: a key must not be empty")
		}
		return nil
	})
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "add account", []dialog.Field{field})
	m.SetSize(80, 20)
	m = press(m, typed("ACCT#x!")...)
	m = press(m, tea.KeyPressMsg{Code: tea.KeyEnter})
	v := ansi.Strip(m.View())
	if strings.Contains(v, "account: account:") || !strings.Contains(v, "account: no ! please") {
		t.Errorf("the error does not name its field once:\n%s", v)
	}
	m = press(m, tea.KeyPressMsg{Code: tea.KeyBackspace})
	if v := ansi.Strip(m.View()); strings.Contains(v, "no ! please") {
		t.Errorf("the error stays after the value is fixed:\n%s", v)
	}
}
