package ui

import (
	"strings"
	"testing"
)

// TestSearchFindsWhatIsPasted: / finds an account by its bare id and by a
// lock key pasted whole, says that case matters when a value is found
// under another case, and lists every holder of a duplicated value, not
// only the lock's owner, before the check ends and after.
func TestSearchFindsWhatIsPasted(t *testing.T) {
	t.Parallel()
	for _, noCheck := range []bool{true, false} {
		store := fakePlanted()
		d := newDriver(t, Options{Roles: roles(store), NoCheck: noCheck}, 180, 40)
		d.ready()
		tests := []struct {
			q    string
			want []string
		}{
			{"e5", []string{"search: e5", "ACCT#e5 email=dup@x.io username=eve"}},
			{"UNIQ#EMAIL#ada@x.io", []string{"search: UNIQ#EMAIL#ada@x.io", "ACCT#a1 email=ada@x.io username=ada"}},
			{"ADA", []string{"search: ADA", "ACCT#a1 email=ada@x.io username=ada", "└ UNIQ#EMAIL#ada@x.io", "└ UNIQ#HANDLE#ada",
				"no username is ADA; found ada: username compares values exactly (--normalize none), so case matters"}},
			{"dup@x.io", []string{"search: dup@x.io", "ACCT#d4 email=dup@x.io username=dave", "└ UNIQ#EMAIL#dup@x.io", "└ UNIQ#HANDLE#dave",
				"ACCT#e5 email=dup@x.io username=eve"}},
			{"Nobody", []string{"search: Nobody", "nothing matches Nobody (tried the account key and every unique attribute); values are compared exactly, so case matters"}},
		}
		for _, tt := range tests {
			d.search(tt.q)
			if err := d.m.layers.search.Err(); err != nil {
				t.Fatalf("search %s: %v", tt.q, err)
			}
			d.wantRows(tt.want...)
		}
		if !noCheck && store.Control.Calls("Find") == 0 {
			t.Error("the search does not ask the backend's Find")
		}
		if s := d.screen(); strings.Contains(s, "error") {
			t.Errorf("error on screen:\n%s", s)
		}
	}
}
