package model

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// oneTableSchema is the schema of a OneTable table of User with unique
// email and username, both spellings recognised, new locks written in
// spelling ("" for the default, the newer).
func oneTableSchema(spelling string) *Schema {
	s := DefaultSchema(LayoutSingle)
	if err := (Preset{&s}).Apply("onetable:User"); err != nil {
		panic(err)
	}
	s.Table, s.PK, s.SK, s.AccountSK, s.KeysFromTable = "app", "pk", "sk", "user#", false
	for _, a := range []string{"email", "username"} {
		s.Constraints = append(s.Constraints, Preset{&s}.Unique(a))
	}
	if spelling != "" {
		if err := (Preset{&s}).SetLockSpelling(spelling); err != nil {
			panic(err)
		}
	}
	if err := s.Validate(); err != nil {
		panic(err)
	}
	return &s
}

// user is a User of oneTableSchema.
func user(id string, kv ...any) row {
	return row{"app", attrs(append([]any{"pk", "user#" + id, "sk", "user#", "_type", "User"}, kv...)...)}
}

// newer and older are unique items of oneTableSchema in each spelling,
// owned by owner when one is given (OneTable names none; locktable does).
func newer(attr, v string, owner ...any) row {
	return row{"app", withOwner(attrs("pk", "_unique#User#"+attr+"#"+v, "sk", "_unique#", "_type", "_Unique"), owner)}
}

func older(attr, v string, owner ...any) row {
	return row{"app", withOwner(attrs("pk", "User:"+attr+":"+v, "sk", "_unique:", "_type", "_Unique"), owner)}
}

// spellingCases are the census cases of a table with locks in two
// spellings (OneTable's older and newer unique items); censusCases runs
// them with the others, in memory, in any order and spilled.
func spellingCases() []censusCase {
	ttl := withTTL(*oneTableSchema(""))
	expired := N(strconv.Itoa(testNow - 3600))
	return []censusCase{
		{
			name:   "onetable: a lock in the older spelling is the value's lock",
			schema: oneTableSchema(""),
			rows:   []row{user("olga", "email", "o@x.io", "username", "olga"), older("email", "o@x.io"), older("username", "olga")},
			counts: [3]int{3, 1, 2},
		},
		{
			name:   "onetable: an orphan in each spelling names the key it has",
			schema: oneTableSchema(""),
			rows:   []row{older("email", "gone@x.io"), newer("email", "left@x.io")},
			counts: [3]int{2, 0, 2},
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"gone@x.io","lock":{"pk":"User:email:gone@x.io","sk":"_unique:"},"accounts":[]}`,
				`{"kind":"orphan_lock","constraint":"email","value":"left@x.io","lock":{"pk":"_unique#User#email#left@x.io","sk":"_unique#"},"accounts":[]}`,
			},
		},
		{
			// The older lock names another owner: the one written is
			// the value's lock, whichever is read first.
			name:   "onetable: a value locked in both spellings has one lock, the one written",
			schema: oneTableSchema(""),
			rows:   []row{user("ada", "email", "a@x.io"), older("email", "a@x.io", "user#zed"), newer("email", "a@x.io", "user#ada")},
			counts: [3]int{3, 1, 2},
		},
		{
			name:   "onetable: an orphan in both spellings is reported once, as written",
			schema: oneTableSchema(""),
			rows:   []row{older("email", "x@x.io"), newer("email", "x@x.io")},
			counts: [3]int{2, 0, 2},
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"x@x.io","lock":{"pk":"_unique#User#email#x@x.io","sk":"_unique#"},"accounts":[]}`,
			},
		},
		{
			name:   "onetable: a foreign lock in the older spelling",
			schema: oneTableSchema(""),
			rows:   []row{user("ada", "email", "a@x.io"), older("email", "a@x.io", "user#zed")},
			counts: [3]int{2, 1, 1},
			want: []string{
				`{"kind":"foreign_lock","constraint":"email","value":"a@x.io","lock":{"pk":"User:email:a@x.io","sk":"_unique:"},"owner":"user#zed","accounts":["user#ada"]}`,
			},
		},
		{
			name:   "onetable, older written: the newer spelling is the other one",
			schema: oneTableSchema(SpellingOlder),
			rows:   []row{user("ada", "email", "a@x.io"), newer("email", "a@x.io"), older("email", "g@x.io"), newer("username", "h")},
			counts: [3]int{4, 1, 3},
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"g@x.io","lock":{"pk":"User:email:g@x.io","sk":"_unique:"},"accounts":[]}`,
				`{"kind":"orphan_lock","constraint":"username","value":"h","lock":{"pk":"_unique#User#username#h","sk":"_unique#"},"accounts":[]}`,
			},
		},
		{
			name:   "onetable: an older key with another sort key is no lock",
			schema: oneTableSchema(""),
			rows:   []row{{"app", attrs("pk", "User:email:q@x.io", "sk", "_unique#", "_type", "_Unique")}},
			counts: [3]int{1, 0, 0},
		},
		{
			name:   "onetable: an expired lock in the older spelling",
			schema: &ttl,
			rows:   []row{{"app", attrs("pk", "User:email:e@x.io", "sk", "_unique:", "_type", "_Unique", "ttl", expired)}},
			counts: [3]int{1, 0, 1},
			want: []string{
				`{"kind":"expired_lock","constraint":"email","value":"e@x.io","lock":{"pk":"User:email:e@x.io","sk":"_unique:"},"accounts":[],"expires_at":` + strconv.Itoa(testNow-3600) + `}`,
			},
		},
	}
}

func TestClassifySpellings(t *testing.T) {
	s, o := oneTableSchema(""), oneTableSchema(SpellingOlder)
	lock := func(ci int, v string, alt bool) Entry {
		return Entry{Kind: EntryLock, Constraint: ci, Value: v, Alt: alt}
	}
	tests := []struct {
		name   string
		schema *Schema
		row    row
		want   Entry
	}{
		{"newer written, newer", s, newer("email", "a@x.io"), lock(0, "a@x.io", false)},
		{"newer written, older", s, older("username", "ada"), lock(1, "ada", true)},
		{"older written, older", o, older("email", "a@x.io"), lock(0, "a@x.io", false)},
		{"older written, newer", o, newer("username", "ada"), lock(1, "ada", true)},
		{"older key, newer sort key", s, row{"app", attrs("pk", "User:email:a@x.io", "sk", "_unique#")}, Entry{}},
		{"another model's older key", s, row{"app", attrs("pk", "Post:slug:x", "sk", "_unique:")}, Entry{}},
		{"an attribute not listed", s, older("phone", "1"), Entry{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Classifier{tt.schema}).Classify("app", tt.row.item); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The spelling new locks are written in is a setting of the schema: set,
// it swaps what is written and what is recognised (cli's
// TestLockSpellingFlags: a target renders it).
func TestLockSpelling(t *testing.T) {
	s := oneTableSchema("")
	if _, key := s.LockKey(0, "a@x.io"); !reflect.DeepEqual(key, map[string]string{"pk": "_unique#User#email#a@x.io", "sk": "_unique#"}) {
		t.Errorf("newer: LockKey = %v", key)
	}
	if err := (Preset{s}).SetLockSpelling(SpellingOlder); err != nil {
		t.Fatal(err)
	}
	if _, key := s.LockKey(0, "a@x.io"); !reflect.DeepEqual(key, map[string]string{"pk": "User:email:a@x.io", "sk": "_unique:"}) {
		t.Errorf("older: LockKey = %v", key)
	}
	var keys []string
	for _, r := range s.LockKeys(1, "ada") {
		keys = append(keys, keyString(r))
	}
	if want := []string{"app {pk=User:username:ada,sk=_unique:}", "app {pk=_unique#User#username#ada,sk=_unique#}"}; !slices.Equal(keys, want) {
		t.Errorf("LockKeys = %v, want %v", keys, want)
	}
	if err := (Preset{s}).SetLockSpelling(SpellingNewer); err != nil || !reflect.DeepEqual(s.Constraints, oneTableSchema("").Constraints) || s.LockSK != "_unique#" {
		t.Errorf("back to newer: %v, %+v, lock sk %q", err, s.Constraints, s.LockSK)
	}
	typedorm := presetSchema(t, "typedorm:user", "PK", "SK", SameAsPK, "email")
	checkFieldError(t, Preset{typedorm}.SetLockSpelling(SpellingOlder), FieldLockSpelling)
	checkFieldError(t, Preset{s}.SetLockSpelling("1.7"), FieldLockSpelling)
	s.Constraints = s.Constraints[:1]
	if err := (Preset{s}).ScopeConstraint(0, "org"); err != nil || s.Constraints[0].AltPrefix != "" {
		t.Errorf("scoped: %v, %+v: OneTable scopes only the newer spelling", err, s.Constraints[0])
	}
	s.LockSpelling = SpellingOlder
	checkFieldError(t, s.Validate(), FieldLockSpelling)
}

// ReadSpelling says what it saw and keeps the older spelling only where
// every unique item of the model is in it.
func TestReadSpelling(t *testing.T) {
	tests := []struct {
		keys      []string
		spelling  string
		wantNote  string
		wantWrite string
	}{
		{[]string{"_unique#User#email#a", "User:email:b", "_unique#Post#slug#c"}, "",
			"unique items of User: 1 as _unique#User#<attr>#<value>, 1 in OneTable's older spelling User:<attr>:<value> (sort key _unique:); new locks as _unique#User#<attr>#<value>", "_unique#User#email#"},
		{[]string{"User:email:b", "User:username:c", "_unique#Post#slug#c"}, "",
			"unique items of User: 2 in OneTable's older spelling User:<attr>:<value> (sort key _unique:); new locks in it too", "User:email:"},
		{[]string{"_Unique:User:email:b", "User:email:c", "_Unique:User:username:d"}, "", // the head most older items have
			"unique items of User: 3 in OneTable's older spelling _Unique:User:<attr>:<value> (sort key _unique:); new locks in it too", "_Unique:User:email:"},
		{[]string{"_unique#acme#User#email#a"}, "", "unique items of User: 1 as _unique#User#<attr>#<value>", "_unique#User#email#"},
		{nil, "", "", "_unique#User#email#"},
		{[]string{"User:email:b"}, SpellingNewer,
			"unique items of User: 1 in OneTable's older spelling User:<attr>:<value> (sort key _unique:); new locks as _unique#User#<attr>#<value>", "_unique#User#email#"},
		{[]string{"_unique#User#email#a"}, SpellingOlder, "unique items of User: 1 as _unique#User#<attr>#<value>; new locks in the older spelling, as given", "User:email:"},
	}
	for _, tt := range tests {
		s := oneTableSchema(tt.spelling)
		note := Preset{s}.ReadSpelling(tt.keys)
		if note != tt.wantNote || s.Constraints[0].Prefix != tt.wantWrite {
			t.Errorf("ReadSpelling(%q), given %q: %q, writes %q\nwant %q, writes %q", tt.keys, tt.spelling, note, s.Constraints[0].Prefix, tt.wantNote, tt.wantWrite)
		}
	}
}

// An account's lock is found in either spelling; the one written first.
func TestJudgeEitherSpelling(t *testing.T) {
	s := oneTableSchema("")
	c := Classifier{s}
	ada := user("ada", "email", "a@x.io", "username", "ada").item
	var expected []string
	for _, r := range c.ExpectedLocks(ada) {
		expected = append(expected, keyString(r))
	}
	if want := []string{
		"app {pk=_unique#User#email#a@x.io,sk=_unique#}", "app {pk=User:email:a@x.io,sk=_unique:}",
		"app {pk=_unique#User#username#ada,sk=_unique#}", "app {pk=User:username:ada,sk=_unique:}",
	}; !slices.Equal(expected, want) {
		t.Errorf("ExpectedLocks = %v, want %v", expected, want)
	}
	db := map[string]Item{}
	for _, r := range []row{older("email", "a@x.io", "user#zed"), newer("email", "a@x.io"), older("username", "ada")} {
		db[keyString(KeyRef{"app", map[string]string{"pk": r.item["pk"].S, "sk": r.item["sk"].S}})] = r.item
	}
	lockAt := func(r KeyRef) (Item, bool) { it, ok := db[keyString(r)]; return it, ok }
	a := c.Judge(ada, lockAt, func(string, int, string) bool { return false }, testNow)
	if l := a.Locks[0]; l.Status != LockOK || l.Alt || l.Owner != "" {
		t.Errorf("email, locked in both: %+v, want ok, the newer lock", l)
	}
	if l := a.Locks[1]; l.Status != LockOK || !l.Alt {
		t.Errorf("username, locked in the older spelling: %+v, want ok, alt", l)
	}
	var involved []string
	for _, r := range c.Involved((Classifier{s}).LockProblem(OrphanLock, 1, "ada", "")) {
		involved = append(involved, keyString(r))
	}
	if want := []string{"app {pk=_unique#User#username#ada,sk=_unique#}", "app {pk=User:username:ada,sk=_unique:}"}; !slices.Equal(involved, want) {
		t.Errorf("Involved = %v, want %v", involved, want)
	}
}

// Writes take the spelling written and check the other is free; they
// release and repair a lock where it is.
func TestPlansSpelling(t *testing.T) {
	s := oneTableSchema("")
	pl := Planner{s}
	p, err := pl.Signup("user#zed", map[string]string{"email": "z@x.io"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 3 || p.Actions[1].Key["pk"] != "_unique#User#email#z@x.io" ||
		p.Actions[2].Kind != ActCheck || p.Actions[2].Key["pk"] != "User:email:z@x.io" || p.Actions[2].Key["sk"] != "_unique:" {
		t.Fatalf("signup actions %+v, want the account, the newer lock and a check of the older key", p.Actions)
	}
	if got, want := p.Actions[2].Purpose(s), "check lock User:email:z@x.io, the value's lock in the other spelling"; got != want {
		t.Errorf("Purpose = %q, want %q", got, want)
	}
	if why := (Classifier{s}).Explain(p.Actions[2], older("email", "z@x.io").item); why != "email z@x.io is taken (its lock names no owner)" {
		t.Errorf("Explain = %q", why)
	}

	// ada's email lock is in the older spelling: a rename releases it there.
	ada := user("ada", "email", "a@x.io").item
	lk := older("email", "a@x.io", "user#ada").item
	a := Classifier{s}.Judge(ada, func(r KeyRef) (Item, bool) { return lk, r.Key["pk"] == "User:email:a@x.io" }, nil, testNow)
	p, err = pl.Rename(a, map[string]string{"email": "b@x.io"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, act := range p.Actions {
		got = append(got, string(act.Kind)+" "+act.Key["pk"])
	}
	if want := []string{"Update user#ada", "Put _unique#User#email#b@x.io", "ConditionCheck User:email:b@x.io", "Delete User:email:a@x.io"}; !slices.Equal(got, want) {
		t.Errorf("rename actions %v, want %v", got, want)
	}

	// An ownerless orphan in the older spelling is claimed, then deleted, there.
	c := censusOf(s, []row{older("email", "gone@x.io")})
	orphan := c.Problems()[0]
	p, err = pl.RepairOrphan(orphan, older("email", "gone@x.io").item, ReclaimPrefix+"t")
	if err != nil {
		t.Fatal(err)
	}
	if k := p.Actions[0].Key; k["pk"] != "User:email:gone@x.io" || k["sk"] != "_unique:" || !p.Reclaim.Alt {
		t.Errorf("claim %v, reclaim %+v: want the older key", k, p.Reclaim)
	}
	if k := pl.DeleteClaimed(*p.Reclaim).Key; k["pk"] != "User:email:gone@x.io" {
		t.Errorf("delete the claimed lock at %v", k)
	}
}
