package model

import (
	"strings"
	"testing"
)

func TestLeftToAPerson(t *testing.T) {
	tests := []struct {
		p    Problem
		want string // a word of the reason; "" for none
	}{
		{Problem{Kind: DuplicateValue, Accounts: []string{"A", "B"}}, "rename or delete"},
		{Problem{Kind: InvalidValue, Accounts: []string{"A"}}, "cannot be locked"},
		{Problem{Kind: MissingLock, Accounts: []string{"A", "B"}}, "2 accounts hold the value"},
		{Problem{Kind: ForeignLock, Accounts: []string{"A", "B", "C"}}, "3 accounts hold the value"},
		{Problem{Kind: MissingLock, Accounts: []string{"A"}}, ""},
		{Problem{Kind: ForeignLock, Accounts: []string{"A"}, Owner: "Z"}, ""},
		{Problem{Kind: OrphanLock, Accounts: []string{}}, ""},
		// Expired and expiring locks: deleted where nobody holds the
		// value, made permanent for their keeper, else a person's.
		{Problem{Kind: ExpiredLock, Accounts: []string{}, Owner: "Z"}, ""},
		{Problem{Kind: ExpiredLock, Accounts: []string{"A", "B"}, Owner: "A"}, ""},
		{Problem{Kind: ExpiringLock, Accounts: []string{"A"}}, ""},
		{Problem{Kind: ExpiringLock, Accounts: []string{"A"}, Owner: "Z"}, "the lock names Z, who does not hold the value"},
		{Problem{Kind: ExpiredLock, Accounts: []string{"A", "B"}}, "2 accounts hold the value and the lock names none"},
	}
	for _, tt := range tests {
		got := tt.p.LeftToAPerson()
		if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s with %v: %q, want it to say %q", tt.p.Kind, tt.p.Accounts, got, tt.want)
		}
	}
}

// TestKeeper: an expired or expiring lock is made permanent for its owner
// where the owner holds the value, else, naming none, for its one holder.
func TestKeeper(t *testing.T) {
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{Problem{Accounts: []string{"A", "B"}, Owner: "B"}, "B"},
		{Problem{Accounts: []string{"A"}}, "A"},
		{Problem{Accounts: []string{"A"}, Owner: "Z"}, ""},
		{Problem{Accounts: []string{"A", "B"}}, ""},
		{Problem{Accounts: []string{}}, ""},
	} {
		if got := tt.p.Keeper(); got != tt.want {
			t.Errorf("owner %q, holders %v: keeper %q, want %q", tt.p.Owner, tt.p.Accounts, got, tt.want)
		}
	}
}

func TestReportDuplicates(t *testing.T) {
	r := Report{Problems: []Problem{
		{Kind: DuplicateValue, Value: "dup@x.io", constraint: 0},
		{Kind: MissingLock, Value: "bob", constraint: 1},
	}}
	dup := r.Duplicates()
	if !dup(0, "dup@x.io") || dup(1, "dup@x.io") || dup(1, "bob") || dup(0, "other") {
		t.Errorf("Duplicates: want only email dup@x.io")
	}
}

// TestSchemaHintNamesFields: the hint names the settings to check as its
// caller says them (cli: as flags), those of a typed schema among them.
func TestSchemaHintNamesFields(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	r := Report{Others: map[string]int{"USER#": 2}}
	name := func(f SchemaField) string { return "<" + string(f) + ">" }
	if got, want := r.SchemaHint(&s, name), "no item of accounts matches the accounts' key (ACCT# with SK PROFILE); its other keys start with USER# (2): check <AccountPrefix>, <AccountSK> and <Layout>"; got != want {
		t.Errorf("hint\n got %s\nwant %s", got, want)
	}
	s.AccountType = Assignment{"_type", "User"}
	if got, want := r.SchemaHint(&s, name), "check <AccountPrefix>, <AccountSK>, <AccountType> and <Preset>"; !strings.HasSuffix(got, want) {
		t.Errorf("hint of a typed schema %s, want it to end %q", got, want)
	}
	if r.Accounts = 1; r.SchemaHint(&s, name) != "" {
		t.Error("a hint where accounts were found")
	}
}

func TestCapacityText(t *testing.T) {
	for units, want := range map[float64]string{0.5: "0.5", 8: "8.0", 53: "53.0", 999.96: "1,000.0", 2193.4: "2,193.4", 1234567.8: "1,234,567.8"} {
		if got := CapacityText(units); got != want {
			t.Errorf("CapacityText(%v) = %q, want %q", units, got, want)
		}
	}
}
