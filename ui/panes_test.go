package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
)

// TestDetailTopAndBottom: g and G, which move to the top and the end of
// every list, did nothing in a detail pane. They scroll it to its top and
// its end.
func TestDetailTopAndBottom(t *testing.T) {
	t.Parallel()
	a := acct("ACCT#a1", "ada@x.io", "ada")
	for i := range 40 {
		a[fmt.Sprintf("attr%02d", i)] = model.S("v")
	}
	d := newDriver(t, Options{Roles: roles(fake(a)), NoCheck: true}, 80, 24)
	d.ready()
	d.press("enter")
	waitScreen(d, "the account's detail", `"PK": {"S": "ACCT#a1"}`)
	d.press("G")
	if s := d.screen(); !strings.Contains(s, `"attr39"`) || strings.Contains(s, `"attr00"`) {
		t.Errorf("G does not show the detail's end:\n%s", s)
	}
	d.press("g")
	if s := d.screen(); !strings.Contains(s, `"attr00"`) || strings.Contains(s, `"attr39"`) {
		t.Errorf("g does not show the detail's top:\n%s", s)
	}
}

// TestRaceBoardNamesTheWinnerAt80: at 80 columns a cancelled racer's line
// was cut inside the winner's id ("taken by A…"). Each line names the
// winner whole.
func TestRaceBoardNamesTheWinnerAt80(t *testing.T) {
	t.Parallel()
	d := startRaceSized(t, fakePlanted(), 80, 24)
	waitScreen(d, "the verdict", "1 of 10 racers committed")
	winner := ""
	for _, l := range d.lines() {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "racer" && f[2] == "committed" {
			winner = f[3]
		}
	}
	if winner == "" {
		t.Fatalf("no winner on the board:\n%s", d.screen())
	}
	cancelled := 0
	for _, l := range d.lines() {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "racer" && f[2] == "cancelled" {
			cancelled++
			if !strings.Contains(l, "taken by "+winner) {
				t.Errorf("a cancelled racer does not name the winner %s whole: %q", winner, l)
			}
		}
	}
	if cancelled == 0 {
		t.Fatalf("no cancelled racer on the board:\n%s", d.screen())
	}
	wantWithin(t, d, 80)
}

// TestReplayAdvisesWhatFixesIt: the replay of gsi-duplicate said
// "locktable repair fixes what it can" under a duplicate_value, which
// repair never fixes. A problem a person decides says what the person
// does, and repair is named only for what it fixes.
func TestReplayAdvisesWhatFixesIt(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	report, err := store.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var dup []model.Problem
	for _, p := range report.Problems {
		if p.Kind == model.DuplicateValue {
			dup = append(dup, p)
		}
	}
	run := func(_ context.Context, kind string) (mistake.Replay, error) {
		return mistake.Replay{Kind: kind, Problem: model.DuplicateValue, Story: "two accounts took one email", Found: dup}, nil
	}
	d := newDriver(t, Options{Roles: roles(store), Break: run}, 120, 40)
	d.ready()
	d.press("B", "j", "enter")
	waitScreen(d, "the replay", "replayed gsi-duplicate")
	s := fields(d.screen())
	if strings.Contains(s, "repair fixes") || !strings.Contains(s, "rename or delete one of them") {
		t.Errorf("the replay's advice for a duplicate:\n%s", d.screen())
	}
}
