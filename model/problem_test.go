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
	}
	for _, tt := range tests {
		got := tt.p.LeftToAPerson()
		if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s with %v: %q, want it to say %q", tt.p.Kind, tt.p.Accounts, got, tt.want)
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
