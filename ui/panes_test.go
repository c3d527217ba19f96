package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
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
	d := newDriver(t, Options{Store: fake(a), NoCheck: true}, 80, 24)
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
