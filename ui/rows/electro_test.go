package rows_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// electroRenderer renders for the preset electrodb:agent with two unique
// attributes, email and backup: ElectroDB keys both constraints'
// items under one partition key prefix ($mi6#value_), told apart only by
// their sort key (name_email, name_backup), and they carry no owner.
func electroRenderer(t *testing.T) *rows.Renderer {
	t.Helper()
	sc := model.DefaultSchema(model.LayoutSingle)
	preset := model.Preset{Schema: &sc}
	if err := preset.Apply("electrodb:agent"); err != nil {
		t.Fatal(err)
	}
	sc.PK, sc.SK, sc.KeysFromTable = "pk", "sk", false
	e := model.DefaultConstraintEntity("mi6")
	sc.Constraints = []model.Constraint{preset.ElectroUnique("email", e), preset.ElectroUnique("backup", e)}
	st := styles.New(true)
	return &rows.Renderer{Schema: &sc, Styles: &st}
}

// TestElectroRowsNameTheConstraint: two constraints of one agent whose
// values are the same have lock rows of one partition key; each row says
// which attribute it guards (its sort key), and a healthy constraint,
// which names no owner by design, does not read "no owner".
func TestElectroRowsNameTheConstraint(t *testing.T) {
	r := electroRenderer(t)
	agent := model.Item{"pk": model.S("$mi6#designation_00"), "sk": model.S("$agent_1#id_a1"), "email": model.S("m@mi6.uk"), "backup": model.S("m@mi6.uk")}
	lock := func(attr string) model.Item {
		return model.Item{"pk": model.S("$mi6#value_m@mi6.uk"), "sk": model.S("$constraint_1#name_" + attr + "#entity_agent")}
	}
	a := &model.AccountView{ID: "$mi6#designation_00|$agent_1#id_a1", Item: agent, Locks: []model.LockView{
		{Constraint: 0, Value: "m@mi6.uk", Item: lock("email"), Status: model.LockOK},
		{Constraint: 1, Value: "m@mi6.uk", Status: model.LockMissing},
	}}
	ok, missing := ansi.Strip(r.Lock(a, 0, 100, false)), ansi.Strip(r.Lock(a, 1, 100, false))
	if !strings.Contains(ok, "email") || strings.Contains(ok, "no owner") {
		t.Errorf("healthy email constraint row %q: want it to name email, not say no owner", ok)
	}
	if !strings.Contains(missing, "backup") {
		t.Errorf("missing backup constraint row %q: want it to name backup", missing)
	}
	orphan := model.Classifier{Schema: r.Schema}.LockProblem(model.OrphanLock, 1, "q@mi6.uk", "")
	if got := ansi.Strip(r.Orphan(&orphan, 0, 100, false)); !strings.Contains(got, "backup") || strings.Contains(got, "no owner") {
		t.Errorf("orphan row %q: want it to name backup, not say no owner", got)
	}
	// Narrow, the attribute stays: without it the row names no item.
	long := "quartermaster.of.the.service.longest@mi6.gov.uk"
	orphan = model.Classifier{Schema: r.Schema}.LockProblem(model.OrphanLock, 1, long, "")
	for _, w := range []int{80, 60} {
		if got := ansi.Strip(r.Problem(&orphan, 0, w, false)); !strings.Contains(got, "backup") {
			t.Errorf("problem row at %d columns %q: want it to keep backup", w, got)
		}
		l := model.Lock{Constraint: 1, Value: long}
		if got := ansi.Strip(r.LockItem(&l, "orphan", model.LockOrphan, 0, w, false)); !strings.Contains(got, "backup") || strings.Contains(got, "no owner") {
			t.Errorf("locks view row at %d columns %q: want it to keep backup, not say no owner", w, got)
		}
	}
}

// TestLongHolderGivesWayInItsMiddle: an agent named by its whole key is
// long; at 80 columns a missing constraint's row still shows its value
// whole, and the holder keeps both its ends (its partition and its id).
func TestLongHolderGivesWayInItsMiddle(t *testing.T) {
	r := electroRenderer(t)
	p := model.Classifier{Schema: r.Schema}.LockProblem(model.MissingLock, 0, "ada.100@example.org", "")
	p.Lock, p.LockTable, p.Accounts = nil, "", []string{"$mi6#designation_04|$agent_1#id_acdab8924"}
	got := ansi.Strip(r.Problem(&p, 0, 80, false))
	for _, want := range []string{"ada.100@example.org", "email", "ignation_04|", "acdab8924", "missing"} {
		if !strings.Contains(got, want) {
			t.Errorf("problem row at 80 columns %q: want %q in it", got, want)
		}
	}
	if w := ansi.StringWidth(got); w != 80 {
		t.Errorf("row is %d cells wide, want 80", w)
	}
}

// TestWholeKeyAccountGivesWayInItsMiddle: an agent's whole key that does
// not fit keeps the ends of its halves, its designation and its id, which
// tell it from the agents around it (cut at its end, a00000000 and
// a00000001 would read alike): each half gives way at its head.
func TestWholeKeyAccountGivesWayInItsMiddle(t *testing.T) {
	r := electroRenderer(t)
	r.Schema.Constraints = r.Schema.Constraints[:1]
	r.Schema.AccountSK = model.KeyInID
	id := "$mi6#designation_00|$agent_1#id_a00000001"
	a := &model.AccountView{ID: id, Item: model.Item{"pk": model.S("$mi6#designation_00"), "sk": model.S("$agent_1#id_a00000001"),
		"email": model.S("quartermaster.of.the.service@mi6.gov.uk")}}
	got := ansi.Strip(r.Account(a, 60, false))
	for _, want := range []string{"ignation_00|", "id_a00000001"} {
		if !strings.Contains(got, want) {
			t.Errorf("account row at 60 columns %q: want %q in it", got, want)
		}
	}
}
