package model

import (
	"reflect"
	"strings"
	"testing"
)

func TestInferIDAttr(t *testing.T) {
	tests := []struct {
		name             string
		accounts         []Item
		skip             []string
		wantAttr, prefix string
		note             string // in the note
	}{
		{"onetable", []Item{
			attrs("pk", "user#ada", "sk", "user#", "id", "ada", "email", "a@x.io"),
			attrs("pk", "user#bob", "sk", "user#", "id", "bob", "username", "bob"),
		}, []string{"sk", "username"}, "id", "user#", "id attribute: id"},
		{"typedorm: the sort key is the key, and skipped", []Item{
			attrs("PK", "USER#ada", "SK", "USER#ada", "id", "ada"),
		}, []string{"SK"}, "id", "USER#", "id attribute: id"},
		{"one account without it: none", []Item{
			attrs("pk", "user#ada", "id", "ada"),
			attrs("pk", "user#bob"),
		}, nil, "", "", "none"},
		{"prefixes differ: none", []Item{
			attrs("pk", "user#ada", "id", "ada"),
			attrs("pk", "member#bob", "id", "bob"),
		}, nil, "", "", "none"},
		{"two attributes fit: ambiguous", []Item{
			attrs("pk", "user#ada", "id", "ada", "handle", "ada"),
			attrs("pk", "user#bob", "id", "bob", "handle", "bob"),
		}, nil, "", "", "ambiguous (handle, id"},
		{"the other one skipped", []Item{
			attrs("pk", "user#ada", "id", "ada", "handle", "ada"),
		}, []string{"handle"}, "id", "user#", "id attribute: id"},
		{"an id that is only a suffix of the key part", []Item{
			attrs("pk", "user#ada", "id", "da"),
		}, nil, "id", "user#a", "id attribute: id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pk := "pk"
			if _, ok := tt.accounts[0]["PK"]; ok {
				pk = "PK"
			}
			attr, prefix, note := InferIDAttr(tt.accounts, pk, tt.skip...)
			if attr != tt.wantAttr || prefix != tt.prefix || !strings.Contains(note, tt.note) {
				t.Errorf("InferIDAttr = %q, %q, %q; want %q, %q, a note with %q", attr, prefix, note, tt.wantAttr, tt.prefix, tt.note)
			}
		})
	}
}

func TestScopedUniques(t *testing.T) {
	s := presetSchema(t, "onetable:Member", "pk", "sk", "member#", "email")
	s.Constraints = nil
	keys := []string{
		"_unique#acme#Member#email#ada@x.io",
		"_unique#globex#Member#email#ada@x.io",
		"_unique#globex#Member#email#bob@x.io",
		"_unique#initech#Member#email#gone@x.io", // an orphan in a scope no account has
		"_unique#Member#username#ada",            // unscoped: not this function's
		"_unique#acme#Post#slug#hello",           // another model's
		"DRM_GEN_MEMBER.EMAIL#x",                 // another library's
		"_unique##Member#email#x",                // no scope
		"_unique#acme#Member##x",                 // no attribute
		"_unique#acme#Member#email",              // no value
	}
	member := func(id, org, team string) Item {
		return attrs("pk", "member#"+id, "sk", "member#", "_type", "Member", "id", id, "org", org, "team", team)
	}
	skip := []string{"pk", "sk", "_type"}
	want := Constraint{Attr: "email", Prefix: "_unique#", Scope: "org", Tail: "#Member#email#", Normalize: NormalizeNone}

	cs, notes := Preset{s}.ScopedUniques(keys, []Item{member("m1", "acme", "red"), member("m2", "globex", "blue")}, skip...)
	if !reflect.DeepEqual(cs, []Constraint{want}) {
		t.Errorf("constraints %+v, want %+v (notes %q)", cs, want, notes)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "email is unique per org: 2 of the 3 scopes") {
		t.Errorf("notes %q", notes)
	}
	if got := want.Template(); got != "_unique#${org}#Member#email#" {
		t.Errorf("template %q", got)
	}

	// Two attributes hold the scopes: no guess.
	cs, notes = Preset{s}.ScopedUniques(keys, []Item{member("m1", "acme", "acme"), member("m2", "globex", "globex")}, skip...)
	if len(cs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "several attributes of the accounts hold them (org, team)") ||
		!strings.Contains(notes[0], "--scope email=ATTR") {
		t.Errorf("ambiguous: constraints %+v, notes %q", cs, notes)
	}
	// None does: no guess either.
	cs, notes = Preset{s}.ScopedUniques(keys, []Item{member("m1", "x", "y")}, skip...)
	if len(cs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "no attribute of the accounts holds the scopes") {
		t.Errorf("no match: constraints %+v, notes %q", cs, notes)
	}
	// Not OneTable: nothing.
	td := presetSchema(t, "typedorm:member", "PK", "SK", SameAsPK, "email")
	if cs, notes := (Preset{td}).ScopedUniques(keys, []Item{member("m1", "acme", "red")}, skip...); cs != nil || notes != nil {
		t.Errorf("typedorm: %+v %q", cs, notes)
	}
}

// The id attribute: a signup writes the key without the account prefix
// there, refuses another value, and a signup given only the id gets the
// key from it.
func TestSignupIDAttr(t *testing.T) {
	s := presetSchema(t, "onetable:User", "pk", "sk", "user#", "email")
	s.IDAttr, s.IDPrefix = "id", "user#" // as the preset infers them: accounts stay told by _type
	if s.AccountPrefix != "" || s.IDAttr+"="+s.IDPrefix != "id=user#" {
		t.Fatalf("account prefix %q, --id-attr %q", s.AccountPrefix, s.IDAttr+"="+s.IDPrefix)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := Planner{s}.Signup("user#zed", map[string]string{"email": "z@x.io"})
	if err != nil {
		t.Fatal(err)
	}
	want := attrs("pk", "user#zed", "sk", "user#", "_type", "User", "id", "zed", "email", "z@x.io")
	if got := p.Actions[0].Item; !reflect.DeepEqual(got, want) {
		t.Errorf("account item %v, want %v", got, want)
	}
	if _, err := (Planner{s}).Signup("user#zed", map[string]string{"id": "zed", "email": "z@x.io"}); err != nil {
		t.Errorf("the same id given: %v", err)
	}
	if _, err := (Planner{s}).Signup("user#zed", map[string]string{"id": "other", "email": "z@x.io"}); err == nil || !strings.Contains(err.Error(), `"zed", not "other"`) {
		t.Errorf("another id given: %v", err)
	}
	if key, ok := (AccountIDs{s}).SignupKey(map[string]string{"id": "yan"}); key != "user#yan" || !ok {
		t.Errorf("SignupKey = %q, %v", key, ok)
	}
	if _, ok := (AccountIDs{s}).SignupKey(map[string]string{"email": "z@x.io"}); ok {
		t.Error("SignupKey without the id")
	}
	id := AccountIDs{s}.New()
	if p, err := (Planner{s}).Signup(id, nil); err != nil || p.Actions[0].Item["id"].S != strings.TrimPrefix(id, "user#") || !strings.HasPrefix(id, "user#") {
		t.Errorf("a new id %q: %v, item %v", id, err, p.Actions[0].Item)
	}
	{
		b := *s
		b.IDAttr = ""
		if err := b.Validate(); err == nil || !strings.HasPrefix(err.Error(), "IDAttr: ") {
			t.Errorf("a prefix without an id attribute: %v", err)
		}
	}
	if _, err := (Planner{s}).Signup("member#zed", nil); err == nil || !strings.Contains(err.Error(), `"member#zed" does not start with it`) {
		t.Errorf("a key without the id's prefix: %v", err)
	}
	{
		b := *s
		b.AccountPrefix = "acct#"
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), `start with AccountPrefix "acct#"`) {
			t.Errorf("an id prefix outside the account prefix: %v", err)
		}
	}
	for _, bad := range []string{"pk", "sk", "owner", "email", "_type"} {
		b := *s
		b.IDAttr = bad
		if err := b.Validate(); err == nil || !strings.HasPrefix(err.Error(), "IDAttr: ") {
			t.Errorf("IDAttr %s: %v", bad, err)
		}
	}
}
