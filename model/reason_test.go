package model

import "testing"

// TestAlreadyRepaired: a cancelled repair is already repaired only when
// every failed slot is one of its writes and the item there shows it; a
// failed check, another owner, another code or another operation is not.
func TestAlreadyRepaired(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	holder := AccountView{ID: "ACCT#m", Item: Item{"PK": S("ACCT#m"), "SK": S("PROFILE"), "email": S("m@x")}}
	p := Problem{Kind: MissingLock, Constraint: "email", Value: "m@x", Accounts: []string{"ACCT#m"}, constraint: 0}
	missing, err := Planner{&s}.RepairMissing(p, holder)
	if err != nil {
		t.Fatal(err)
	}
	lock := Item{"PK": S("UNIQ#EMAIL#m@x"), "SK": S("LOCK"), "owner": S("ACCT#a")}
	foreign, err := Planner{&s}.RepairForeign(Problem{Kind: ForeignLock, Constraint: "email", Value: "m@x", constraint: 0}, lock, holder)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := Planner{&s}.RepairOrphan(Problem{Kind: OrphanLock, Constraint: "email", Value: "m@x", constraint: 0}, lock, "")
	if err != nil {
		t.Fatal(err)
	}
	put := Item{"PK": S("UNIQ#EMAIL#m@x"), "SK": S("LOCK"), "owner": S("ACCT#m")}
	other := Item{"PK": S("UNIQ#EMAIL#m@x"), "SK": S("LOCK"), "owner": S("ACCT#z")}
	signup := missing
	signup.Operation = "signup"
	for _, c := range []struct {
		name   string
		p      Plan
		failed []Failure
		want   string // "" for not already repaired
	}{
		{"lock put by another", missing, []Failure{{0, "ConditionalCheckFailed", put}}, "already repaired: UNIQ#EMAIL#m@x now has owner ACCT#m (another writer repaired it)"},
		{"lock put, account changed", missing, []Failure{{0, "ConditionalCheckFailed", put}, {1, "ConditionalCheckFailed", holder.Item}}, ""},
		{"lock of another owner", missing, []Failure{{0, "ConditionalCheckFailed", other}}, ""},
		{"lock with more attributes", missing, []Failure{{0, "ConditionalCheckFailed", Item{"PK": S("UNIQ#EMAIL#m@x"), "SK": S("LOCK"), "owner": S("ACCT#m"), "x": S("1")}}}, ""},
		{"not a condition", missing, []Failure{{0, "TransactionConflict", put}}, ""},
		{"unread", missing, []Failure{{0, "Unread", nil}}, ""},
		{"nothing failed", missing, nil, ""},
		{"a signup", signup, []Failure{{0, "ConditionalCheckFailed", put}}, ""},
		{"lock handed by another", foreign, []Failure{{0, "ConditionalCheckFailed", put}}, "already repaired: UNIQ#EMAIL#m@x now has owner ACCT#m (another writer repaired it)"},
		{"lock handed elsewhere", foreign, []Failure{{0, "ConditionalCheckFailed", other}}, ""},
		{"orphan gone", orphan, []Failure{{0, "ConditionalCheckFailed", nil}}, "already repaired: UNIQ#EMAIL#m@x is gone (another writer repaired it)"},
		{"orphan taken", orphan, []Failure{{0, "ConditionalCheckFailed", other}}, ""},
		{"orphan's owner holds it", orphan, []Failure{{1, "ConditionalCheckFailed", holder.Item}}, ""},
	} {
		note, ok := Classifier{&s}.AlreadyRepaired(c.p, c.failed)
		if ok != (c.want != "") || note != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, note, ok, c.want)
		}
	}
}
