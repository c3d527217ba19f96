package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// TestTheViewsTakeTheNewestReport (found by
// TestTheScreenAgreesWithTheTable at full scale: the problems view still
// listed an orphan a fix had resolved, and the accounts view's orphans
// on top one the stream had made foreign, while the header counted
// right): each new report reaches the views as a command's message, and
// commands run side by side, so an older report's message could come
// last and stay on screen. The views take the report the check holds,
// as the header does.
func TestTheViewsTakeTheNewestReport(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	orphan := func(v string) model.Problem {
		return model.Problem{Kind: model.OrphanLock, Constraint: "username", Value: v, Lock: map[string]string{"PK": "UNIQ#HANDLE#" + v, "SK": "LOCK"}}
	}
	c, one := d.m.check.Amend([]model.Problem{orphan("zz1")}, nil) // as the stream's judgements amend it
	d.m.check = c
	c, two := d.m.check.Amend([]model.Problem{orphan("zz2")}, nil)
	d.m.check = c
	d.send(two()) // the newer report's message first,
	d.send(one()) // the older one's last
	d.press("3")
	if s := d.screen(); !strings.Contains(s, "zz2") || !strings.Contains(s, "zz1") {
		t.Errorf("the problems view does not show the newest report (both orphans):\n%s", s)
	}
}
