package model

import "testing"

// TestIdentityIsSameProblem: Identity, the key marks, pins and the
// selection use, names two problems alike exactly when SameProblem, the
// check's identity, calls them the same (issue 38: one identity per thing).
func TestIdentityIsSameProblem(t *testing.T) {
	lock := map[string]string{"PK": "UNIQ#EMAIL#a@x.io"}
	ps := []Problem{
		{Kind: MissingLock, constraint: 0, Value: "a@x.io", Accounts: []string{"ACCT#1"}},
		{Kind: MissingLock, constraint: 0, Value: "a@x.io", Accounts: []string{"ACCT#2"}}, // the same: holders are not its identity
		{Kind: MissingLock, constraint: 1, Value: "a@x.io"},
		{Kind: OrphanLock, constraint: 0, Value: "a@x.io", Lock: lock, Owner: "ACCT#1"},
		{Kind: ForeignLock, constraint: 0, Value: "a@x.io", Lock: lock, Owner: "ACCT#1"},
		{Kind: ExpiredLock, constraint: 0, Value: "a@x.io", Lock: lock},
		{Kind: ExpiringLock, constraint: 0, Value: "a@x.io", Lock: lock}, // the same lock, its TTL read later
		{Kind: DuplicateValue, constraint: 0, Value: "a@x.io", Accounts: []string{"ACCT#1", "ACCT#2"}},
		{Kind: InvalidValue, constraint: 0, Value: `{"N":"5"}`, Accounts: []string{"ACCT#1"}},
		{Kind: InvalidValue, constraint: 0, Value: `{"N":"5"}`, Accounts: []string{"ACCT#2"}},
		{Kind: InvalidValue, constraint: 0, Value: `{"N":"5"}`, Accounts: []string{"ACCT#1"}, Lock: lock},
	}
	for i, p := range ps {
		for j, q := range ps {
			if same, ids := SameProblem(p, q), p.Identity() == q.Identity(); same != ids {
				t.Errorf("problems %d and %d: SameProblem %v, Identity alike %v", i, j, same, ids)
			}
		}
	}
}
