package model

import "testing"

// TestFootprintLeft: a record is the action's when its new image carries
// what the action wrote, or it is a REMOVE for a delete; without images,
// the event alone tells.
func TestFootprintLeft(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	p := Planner{Schema: &s}
	acct := Item{"PK": S("ACCT#a1"), "SK": S("PROFILE"), "email": S("ada@x.io"), "username": S("ada")}
	put := Footprint{Has: acct}
	update := Footprint{Has: Item{"username": S("bobby")}, Lacks: []string{"ttl"}}
	del := Footprint{Gone: true}
	with := func(it Item, kv ...string) Item {
		out := Item{}
		for k, v := range it {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = S(kv[i+1])
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    Footprint
		ch   Change
		want bool
	}{
		{"the put's item", put, Change{Event: ChangeInsert, New: acct}, true},
		{"the put's item and more", put, Change{Event: ChangeModify, New: with(acct, "nick", "x")}, true},
		{"another value", put, Change{Event: ChangeModify, New: with(acct, "username", "eve")}, false},
		{"the update's value", update, Change{Event: ChangeModify, New: with(acct, "username", "bobby")}, true},
		{"a value the update removed", update, Change{Event: ChangeModify, New: with(acct, "username", "bobby", "ttl", "1")}, false},
		{"a delete's REMOVE", del, Change{Event: ChangeRemove, Old: acct}, true},
		{"a delete, then a put", del, Change{Event: ChangeInsert, New: acct}, false},
		{"a put, then a REMOVE", put, Change{Event: ChangeRemove}, false},
		{"keys only: a MODIFY for an update", update, Change{Event: ChangeModify}, true},
		{"keys only: a REMOVE for an update", update, Change{Event: ChangeRemove}, false},
	} {
		if got := c.f.Left(c.ch); got != c.want {
			t.Errorf("%s: Left = %v, want %v", c.name, got, c.want)
		}
	}

	// A reclaim leaves its claim, then one of two last steps.
	plan, err := p.Reclaim(Problem{Kind: OrphanLock, Constraint: "username", Value: "ghost", constraint: 1}, "locktable:reclaim:t", false)
	if err != nil {
		t.Fatal(err)
	}
	fs := p.Footprints(plan, "t")
	var claims, alts int
	for _, f := range fs {
		if f.Write != "t" {
			t.Errorf("footprint of write %q, want t", f.Write)
		}
		if f.Alt {
			alts++
		} else {
			claims++
		}
	}
	if claims != 1 || alts != 2 {
		t.Errorf("a reclaim's footprints: %d claims and %d last steps, want 1 and 2: %+v", claims, alts, fs)
	}
}
