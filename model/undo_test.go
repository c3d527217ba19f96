package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func lockItemOf(pk, owner string) Item {
	it := Item{"PK": S(pk), "SK": S("LOCK")}
	if owner != "" {
		it["owner"] = S(owner)
	}
	return it
}

func accountItemOf(id string, attrs ...string) Item {
	it := Item{"PK": S(id), "SK": S("PROFILE")}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = S(attrs[i+1])
	}
	return it
}

func undoItem(before, after Item) UndoItem {
	k := firstItem(before, after)
	return UndoItem{Table: "accounts", Key: map[string]string{"PK": k["PK"].S, "SK": k["SK"].S}, Before: before, After: after}
}

// render is an action as one line: kind, role, key, what it writes and
// its conditions.
func render(a Action) string {
	var conds []string
	for _, c := range a.Conds {
		switch {
		case c.Kind == CondNotExists || (c.Kind == CondEquals && c.Absent):
			conds = append(conds, "no "+c.Attr)
		case c.Kind == CondExists:
			conds = append(conds, "has "+c.Attr)
		default:
			conds = append(conds, c.Attr+"="+c.Value.S)
		}
	}
	var writes []string
	for _, name := range a.Item.SortedNames() {
		writes = append(writes, name+"="+a.Item[name].S)
	}
	for _, name := range Item(a.Set).SortedNames() {
		writes = append(writes, "set "+name+"="+a.Set[name].S)
	}
	for _, name := range a.Remove {
		writes = append(writes, "remove "+name)
	}
	return fmt.Sprintf("%s %d %s [%s] if [%s]", a.Kind, a.Role, a.Key["PK"], strings.Join(writes, " "), strings.Join(conds, " "))
}

func TestUndo(t *testing.T) {
	sc := DefaultSchema(LayoutSingle)
	ada := accountItemOf("ACCT#a1", "email", "ada@x.io", "username", "ada")
	renamed := accountItemOf("ACCT#a1", "email", "ada@new.io", "username", "ada")
	for _, tc := range []struct {
		name     string
		items    []UndoItem
		now      map[string]Item
		want     []string
		mustType string
		err      string
	}{{
		name: "a rename goes back, guarded by every attribute it left",
		items: []UndoItem{undoItem(ada, renamed), undoItem(nil, lockItemOf("UNIQ#EMAIL#ada@new.io", "ACCT#a1")),
			undoItem(lockItemOf("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), nil)},
		want: []string{
			fmt.Sprintf("Update %d ACCT#a1 [set email=ada@x.io] if [has PK email=ada@new.io username=ada]", RoleRestore),
			fmt.Sprintf("Delete %d UNIQ#EMAIL#ada@new.io [] if [owner=ACCT#a1]", RoleRestore),
			fmt.Sprintf("Put %d UNIQ#EMAIL#ada@x.io [PK=UNIQ#EMAIL#ada@x.io SK=LOCK owner=ACCT#a1] if [no PK]", RoleTakeLock),
		},
	}, {
		name:  "an attribute added since must be absent: the undo is cancelled",
		items: []UndoItem{undoItem(ada, renamed)},
		now:   map[string]Item{"ACCT#a1": accountItemOf("ACCT#a1", "email", "ada@new.io", "username", "ada", "nick", "a")},
		want:  []string{fmt.Sprintf("Update %d ACCT#a1 [set email=ada@x.io] if [has PK email=ada@new.io username=ada no nick]", RoleRestore)},
	}, {
		name:     "a signup is undone by deleting what it created; the account's key is typed back",
		items:    []UndoItem{undoItem(nil, ada), undoItem(nil, lockItemOf("UNIQ#HANDLE#ada", "ACCT#a1"))},
		want:     []string{fmt.Sprintf("Delete %d ACCT#a1 [] if [email=ada@x.io username=ada]", RoleRestore), fmt.Sprintf("Delete %d UNIQ#HANDLE#ada [] if [owner=ACCT#a1]", RoleRestore)},
		mustType: "ACCT#a1",
	}, {
		name: "an update is undone by setting back what it removed and removing what it added",
		items: []UndoItem{undoItem(accountItemOf("ACCT#a1", "email", "ada@x.io", "bio", "b"),
			accountItemOf("ACCT#a1", "email", "ada@x.io", "nick", "a"))},
		want: []string{fmt.Sprintf("Update %d ACCT#a1 [set bio=b remove nick] if [has PK email=ada@x.io nick=a]", RoleRestore)},
	}, {
		name:  "a delete is undone by putting the account back",
		items: []UndoItem{undoItem(ada, nil)},
		want:  []string{fmt.Sprintf("Put %d ACCT#a1 [PK=ACCT#a1 SK=PROFILE email=ada@x.io username=ada] if [no PK]", RoleCreateAccount)},
	}, {
		name:  "a reclaimed orphan comes back as it was before the claim: no owner",
		items: []UndoItem{undoItem(lockItemOf("UNIQ#HANDLE#ghost", ReclaimPrefix+"t1"), nil)},
		want:  []string{fmt.Sprintf("Put %d UNIQ#HANDLE#ghost [PK=UNIQ#HANDLE#ghost SK=LOCK] if [no PK]", RoleRestore)},
	}, {
		name:  "a write that changed nothing has nothing to undo",
		items: []UndoItem{undoItem(ada, ada), undoItem(nil, nil)},
		err:   "changed nothing to undo",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := UndoRecord{Token: "t0", Operation: "op", Keys: []string{"ACCT#a1"}, Items: tc.items}
			p, err := Planner{&sc}.Undo(r, func(_ string, key map[string]string) Item { return tc.now[key["PK"]] })
			var fe *FieldError
			if tc.err != "" {
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range p.Actions {
				got = append(got, render(a))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || p.MustType != tc.mustType || p.Undoes != "t0" || p.Operation != "undo" {
				t.Fatalf("plan:\n%s\nwant:\n%s\nmust type %q undoes %q", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), p.MustType, p.Undoes)
			}
		})
	}
}

func TestAfterAndUndoItems(t *testing.T) {
	ada := accountItemOf("ACCT#a1", "email", "ada@x.io", "bio", "b")
	upd := Action{Kind: ActUpdate, Table: "accounts", Key: map[string]string{"PK": "ACCT#a1", "SK": "PROFILE"},
		Set: map[string]Value{"email": S("ada@new.io")}, Remove: []string{"bio"}}
	p := Plan{Actions: []Action{upd, {Kind: ActCheck, Table: "accounts", Key: map[string]string{"PK": "ACCT#b2", "SK": "PROFILE"}},
		{Kind: ActDelete, Table: "accounts", Key: map[string]string{"PK": "UNIQ#EMAIL#ada@x.io", "SK": "LOCK"}}}}
	items := UndoItems(p, func(_ string, key map[string]string) Item {
		if key["PK"] == "ACCT#a1" {
			return ada
		}
		return lockItemOf(key["PK"], "ACCT#a1")
	})
	if len(items) != 2 {
		t.Fatalf("%d items, want the update's and the delete's (a check writes nothing)", len(items))
	}
	if got, want := string(must(items[0].After.MarshalJSON())), `{"PK":{"S":"ACCT#a1"},"SK":{"S":"PROFILE"},"email":{"S":"ada@new.io"}}`; got != want {
		t.Errorf("after the update: %s, want %s", got, want)
	}
	if ada["email"].S != "ada@x.io" || items[0].Before["bio"].S != "b" {
		t.Error("After changed the item it was given")
	}
	if items[1].After != nil || items[1].Before == nil {
		t.Errorf("the delete: before %v, after %v", items[1].Before, items[1].After)
	}
}

func TestExplainRestore(t *testing.T) {
	sc := DefaultSchema(LayoutSingle)
	r := UndoRecord{Token: "t0", Items: []UndoItem{undoItem(accountItemOf("ACCT#a1", "email", "a@x.io"), accountItemOf("ACCT#a1", "email", "b@x.io"))}}
	p, err := Planner{&sc}.Undo(r, func(string, map[string]string) Item { return nil })
	if err != nil {
		t.Fatal(err)
	}
	a := p.Actions[0]
	for now, want := range map[string]string{
		"":       "account ACCT#a1 no longer exists",
		"c@x.io": "account ACCT#a1 changed since that write: email is now c@x.io, not b@x.io",
	} {
		var it Item
		if now != "" {
			it = accountItemOf("ACCT#a1", "email", now)
		}
		if got := (Classifier{&sc}).Explain(a, it); got != want {
			t.Errorf("now %q: %q, want %q", now, got, want)
		}
	}
	if got := a.Purpose(&sc); got != "set account ACCT#a1 back as it was" {
		t.Errorf("purpose %q", got)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
