package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The plans of the guarded transactions (PATTERN.md, "The guarded
// transactions locktable sends"), pinned action by action: kind, role,
// table, key, item or update, conditions, and what the action is about.

var planRoleNames = map[Role]string{
	RoleCreateAccount: "create-account",
	RoleAccount:       "account",
	RoleTakeLock:      "take-lock",
	RoleReleaseLock:   "release-lock",
	RoleKeepLock:      "keep-lock",
	RoleOrphanLock:    "orphan-lock",
	RoleOwnerGone:     "owner-gone",
	RoleHandLock:      "hand-lock",
	RoleClaimLock:     "claim-lock",
	RoleGiveBack:      "give-back",
}

// condText renders a condition so that the three ways of saying "absent"
// stay apart: CondNotExists, CondEquals with Absent, and a value.
func condText(c Cond) string {
	switch c.Kind {
	case CondNotExists:
		return "attribute_not_exists(" + c.Attr + ")"
	case CondEquals:
		if c.Absent {
			return c.Attr + " = <absent>"
		}
		return c.Attr + " = " + c.Value.DynamoJSON()
	case CondAbsentOrDiffers:
		return "attribute_not_exists(" + c.Key + ") OR " + c.Attr + " <> " + c.Value.DynamoJSON()
	case CondExists:
		return "attribute_exists(" + c.Attr + ")"
	}
	return fmt.Sprintf("cond kind %d", c.Kind)
}

// actionText renders everything an action says, in one line.
func actionText(a Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", a.Kind, planRoleNames[a.Role], a.Table)
	for _, k := range slices.Sorted(maps.Keys(a.Key)) {
		fmt.Fprintf(&b, " %s=%s", k, a.Key[k])
	}
	if a.Item != nil {
		j, _ := json.Marshal(a.Item)
		fmt.Fprintf(&b, " item=%s", j)
	}
	if len(a.Set) > 0 {
		j, _ := json.Marshal(Item(a.Set))
		fmt.Fprintf(&b, " set=%s", j)
	}
	if len(a.Remove) > 0 {
		fmt.Fprintf(&b, " remove=%s", strings.Join(a.Remove, ","))
	}
	var conds []string
	for _, c := range a.Conds {
		conds = append(conds, condText(c))
	}
	fmt.Fprintf(&b, " if %s", strings.Join(conds, " AND "))
	if a.Constraint >= 0 {
		fmt.Fprintf(&b, " [c%d %s]", a.Constraint, a.Value)
	}
	if a.Account != "" {
		fmt.Fprintf(&b, " by %s", a.Account)
	}
	return b.String()
}

func planText(p Plan) []string {
	var out []string
	for _, a := range p.Actions {
		out = append(out, actionText(a))
	}
	return out
}

func wantPlan(t *testing.T, p Plan, err error, op string, keys []string, actions ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if p.Operation != op {
		t.Errorf("operation %q, want %q", p.Operation, op)
	}
	if !slices.Equal(p.Keys, keys) {
		t.Errorf("keys %q, want %q", p.Keys, keys)
	}
	got := planText(p)
	if !slices.Equal(got, actions) {
		t.Errorf("actions:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(actions, "\n     "))
	}
}

// planLock is a lock item as read, in its table.
type planLock struct {
	table string
	item  Item
}

// loaded judges an account as the store would after consistent reads of
// the given locks (any lock not given is missing).
func loaded(s *Schema, it Item, locks ...planLock) AccountView {
	lockAt := func(r KeyRef) (Item, bool) {
	next:
		for _, l := range locks {
			if l.table != r.Table {
				continue
			}
			for k, v := range r.Key {
				if got, ok := l.item[k]; !ok || got.Kind != KindS || got.S != v {
					continue next
				}
			}
			return l.item, true
		}
		return nil, false
	}
	return Classifier{s}.Judge(it, lockAt, func(string, int, string) bool { return false }, 0)
}

// single layout items
func sAcct(id string, kv ...string) Item {
	it := Item{"PK": S(id), "SK": S("PROFILE")}
	for i := 0; i < len(kv); i += 2 {
		it[kv[i]] = S(kv[i+1])
	}
	return it
}

func sLock(pk string, owner ...string) planLock {
	it := Item{"PK": S(pk), "SK": S("LOCK")}
	if len(owner) > 0 {
		it["owner"] = S(owner[0])
	}
	return planLock{"accounts", it}
}

// tables layout items
func tDevice(id string, kv ...string) Item {
	it := Item{"id": S(id)}
	for i := 0; i < len(kv); i += 2 {
		it[kv[i]] = S(kv[i+1])
	}
	return it
}

func tMac(v string, owner ...string) planLock {
	it := Item{"MacAddress": S(v)}
	if len(owner) > 0 {
		it["owner"] = S(owner[0])
	}
	return planLock{"unique_mac_addresses", it}
}

func tCode(v string, owner ...string) planLock {
	it := Item{"RegistrationCode": S(v)}
	if len(owner) > 0 {
		it["owner"] = S(owner[0])
	}
	return planLock{"unique_registration_codes", it}
}

func lowerEmail(s *Schema) {
	cs := slices.Clone(s.Constraints)
	cs[0].Normalize = NormalizeLower
	s.Constraints = cs
}

func planSchema(l Layout, mods ...func(*Schema)) *Schema {
	s := DefaultSchema(l)
	for _, m := range mods {
		m(&s)
	}
	return &s
}

func TestPlanSignup(t *testing.T) {
	cases := []struct {
		name    string
		s       *Schema
		id      string
		attrs   map[string]string
		keys    []string
		actions []string
	}{
		{
			name: "single", s: planSchema(LayoutSingle), id: "ACCT#a1",
			attrs: map[string]string{"email": "ada@x.io", "username": "ada", "bio": "hi"},
			keys:  []string{"ACCT#a1", "UNIQ#EMAIL#ada@x.io", "UNIQ#HANDLE#ada"},
			actions: []string{
				`Put create-account accounts PK=ACCT#a1 SK=PROFILE item={"PK":{"S":"ACCT#a1"},"SK":{"S":"PROFILE"},"bio":{"S":"hi"},"email":{"S":"ada@x.io"},"username":{"S":"ada"}} if attribute_not_exists(PK) by ACCT#a1`,
				`Put take-lock accounts PK=UNIQ#EMAIL#ada@x.io SK=LOCK item={"PK":{"S":"UNIQ#EMAIL#ada@x.io"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a1"}} if attribute_not_exists(PK) [c0 ada@x.io] by ACCT#a1`,
				`Put take-lock accounts PK=UNIQ#HANDLE#ada SK=LOCK item={"PK":{"S":"UNIQ#HANDLE#ada"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a1"}} if attribute_not_exists(PK) [c1 ada] by ACCT#a1`,
			},
		},
		{
			// The account keeps the value as given; the lock key is normalized.
			name: "single, email normalized lower, no username", s: planSchema(LayoutSingle, lowerEmail), id: "ACCT#a2",
			attrs: map[string]string{"email": "Ada@X.io", "username": ""},
			keys:  []string{"ACCT#a2", "UNIQ#EMAIL#ada@x.io"},
			actions: []string{
				`Put create-account accounts PK=ACCT#a2 SK=PROFILE item={"PK":{"S":"ACCT#a2"},"SK":{"S":"PROFILE"},"email":{"S":"Ada@X.io"}} if attribute_not_exists(PK) by ACCT#a2`,
				`Put take-lock accounts PK=UNIQ#EMAIL#ada@x.io SK=LOCK item={"PK":{"S":"UNIQ#EMAIL#ada@x.io"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a2"}} if attribute_not_exists(PK) [c0 ada@x.io] by ACCT#a2`,
			},
		},
		{
			name: "tables", s: planSchema(LayoutTables), id: "dev-1",
			attrs: map[string]string{"mac_address": "02:00:00:00:00:01", "registration_code": "RC-1"},
			keys:  []string{"dev-1", "unique_mac_addresses/02:00:00:00:00:01", "unique_registration_codes/RC-1"},
			actions: []string{
				`Put create-account devices id=dev-1 item={"id":{"S":"dev-1"},"mac_address":{"S":"02:00:00:00:00:01"},"registration_code":{"S":"RC-1"}} if attribute_not_exists(id) by dev-1`,
				`Put take-lock unique_mac_addresses MacAddress=02:00:00:00:00:01 item={"MacAddress":{"S":"02:00:00:00:00:01"},"owner":{"S":"dev-1"}} if attribute_not_exists(MacAddress) [c0 02:00:00:00:00:01] by dev-1`,
				`Put take-lock unique_registration_codes RegistrationCode=RC-1 item={"RegistrationCode":{"S":"RC-1"},"owner":{"S":"dev-1"}} if attribute_not_exists(RegistrationCode) [c1 RC-1] by dev-1`,
			},
		},
		{
			name: "tables, only a registration code", s: planSchema(LayoutTables), id: "dev-2",
			attrs: map[string]string{"registration_code": "RC-2"},
			keys:  []string{"dev-2", "unique_registration_codes/RC-2"},
			actions: []string{
				`Put create-account devices id=dev-2 item={"id":{"S":"dev-2"},"registration_code":{"S":"RC-2"}} if attribute_not_exists(id) by dev-2`,
				`Put take-lock unique_registration_codes RegistrationCode=RC-2 item={"RegistrationCode":{"S":"RC-2"},"owner":{"S":"dev-2"}} if attribute_not_exists(RegistrationCode) [c1 RC-2] by dev-2`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.s.Signup(c.id, c.attrs)
			wantPlan(t, p, err, "signup", c.keys, c.actions...)
		})
	}
}

func TestPlanRenameSingle(t *testing.T) {
	s := planSchema(LayoutSingle)
	lower := planSchema(LayoutSingle, lowerEmail)
	upd := func(set, cond string) string {
		return `Update account accounts PK=ACCT#a SK=PROFILE set=` + set + ` if ` + cond + ` by ACCT#a`
	}
	putEmail := func(v string) string {
		return `Put take-lock accounts PK=UNIQ#EMAIL#` + v + ` SK=LOCK item={"PK":{"S":"UNIQ#EMAIL#` + v + `"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a"}} if attribute_not_exists(PK) [c0 ` + v + `] by ACCT#a`
	}
	cases := []struct {
		name    string
		s       *Schema
		view    AccountView
		changes map[string]string
		others  OthersHold
		seen    Item
		keys    []string
		actions []string
		note    bool
	}{
		{
			// As a person was shown it: the unchanged username is guarded
			// too, and its absence as seen brings in the key's existence.
			name:    "seen: every unique attribute guarded as it was on screen",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x", "username", "ada"), sLock("UNIQ#EMAIL#old@x", "ACCT#a")),
			seen:    sAcct("ACCT#a", "email", "shown@x"),
			changes: map[string]string{"email": "new@x"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `attribute_exists(PK) AND email = {"S":"shown@x"} AND username = <absent>`),
				putEmail("new@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = {"S":"ACCT#a"} [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock names the account: deleted with owner = :A",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x", "username", "ada"), sLock("UNIQ#EMAIL#old@x", "ACCT#a"), sLock("UNIQ#HANDLE#ada", "ACCT#a")),
			changes: map[string]string{"email": "new@x"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = {"S":"ACCT#a"} [c0 old@x] by ACCT#a`,
			},
		},
		{
			// The first clause of the rule: a lock that names A is A's to
			// release, whoever else holds the value.
			name:    "old lock names the account, others hold old: still deleted",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x"), sLock("UNIQ#EMAIL#old@x", "ACCT#a")),
			changes: map[string]string{"email": "new@x"},
			others:  func(int, string) bool { return true },
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = {"S":"ACCT#a"} [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock names no owner, no other holder known: deleted if it still names none",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x"), sLock("UNIQ#EMAIL#old@x")),
			changes: map[string]string{"email": "new@x"},
			others:  func(int, string) bool { return false },
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = <absent> [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock names no owner, nothing known about others (nil): deleted",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x"), sLock("UNIQ#EMAIL#old@x")),
			changes: map[string]string{"email": "new@x"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = <absent> [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock names no owner, others hold old: left to them, checked unchanged",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x"), sLock("UNIQ#EMAIL#old@x")),
			changes: map[string]string{"email": "new@x"},
			others:  func(ci int, v string) bool { return ci == 0 && v == "old@x" },
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`ConditionCheck keep-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = <absent> [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock names another account: left to it, checked unchanged",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x"), sLock("UNIQ#EMAIL#old@x", "ACCT#b")),
			changes: map[string]string{"email": "new@x"},
			others:  func(int, string) bool { return false },
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x", "UNIQ#EMAIL#old@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
				`ConditionCheck keep-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = {"S":"ACCT#b"} [c0 old@x] by ACCT#a`,
			},
		},
		{
			name:    "old lock missing: nothing to release",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "old@x")),
			changes: map[string]string{"email": "new@x"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#new@x"},
			actions: []string{
				upd(`{"email":{"S":"new@x"}}`, `email = {"S":"old@x"}`),
				putEmail("new@x"),
			},
		},
		{
			name:    "old value absent: condition says absent, nothing released",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "a@x")),
			changes: map[string]string{"username": "ada"},
			keys:    []string{"ACCT#a", "UNIQ#HANDLE#ada"},
			actions: []string{
				upd(`{"username":{"S":"ada"}}`, `attribute_exists(PK) AND username = <absent>`),
				`Put take-lock accounts PK=UNIQ#HANDLE#ada SK=LOCK item={"PK":{"S":"UNIQ#HANDLE#ada"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a"}} if attribute_not_exists(PK) [c1 ada] by ACCT#a`,
			},
		},
		{
			name:    "empty value removes it and releases its lock",
			s:       s,
			view:    loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "ada"), sLock("UNIQ#HANDLE#ada", "ACCT#a")),
			changes: map[string]string{"username": ""},
			keys:    []string{"ACCT#a", "UNIQ#HANDLE#ada"},
			actions: []string{
				`Update account accounts PK=ACCT#a SK=PROFILE remove=username if username = {"S":"ada"} by ACCT#a`,
				`Delete release-lock accounts PK=UNIQ#HANDLE#ada SK=LOCK if owner = {"S":"ACCT#a"} [c1 ada] by ACCT#a`,
			},
		},
		{
			name: "two attributes at once, in attribute order",
			s:    s,
			view: loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "ada"),
				sLock("UNIQ#EMAIL#a@x", "ACCT#a"), sLock("UNIQ#HANDLE#ada")),
			changes: map[string]string{"username": "lovelace", "email": "b@x"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#b@x", "UNIQ#EMAIL#a@x", "UNIQ#HANDLE#lovelace", "UNIQ#HANDLE#ada"},
			actions: []string{
				upd(`{"email":{"S":"b@x"},"username":{"S":"lovelace"}}`, `email = {"S":"a@x"} AND username = {"S":"ada"}`),
				putEmail("b@x"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#a@x SK=LOCK if owner = {"S":"ACCT#a"} [c0 a@x] by ACCT#a`,
				`Put take-lock accounts PK=UNIQ#HANDLE#lovelace SK=LOCK item={"PK":{"S":"UNIQ#HANDLE#lovelace"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a"}} if attribute_not_exists(PK) [c1 lovelace] by ACCT#a`,
				`Delete release-lock accounts PK=UNIQ#HANDLE#ada SK=LOCK if owner = <absent> [c1 ada] by ACCT#a`,
			},
		},
		{
			// normalize(old) == normalize(new): only the account changes, and
			// its condition holds the value exactly as loaded.
			name:    "lower: a change of case keeps the lock, condition as loaded",
			s:       lower,
			view:    loaded(lower, sAcct("ACCT#a", "email", "Ada@X.io"), sLock("UNIQ#EMAIL#ada@x.io", "ACCT#a")),
			changes: map[string]string{"email": "ADA@x.IO"},
			keys:    []string{"ACCT#a"},
			actions: []string{upd(`{"email":{"S":"ADA@x.IO"}}`, `email = {"S":"Ada@X.io"}`)},
			note:    true,
		},
		{
			name:    "lower: a real change puts the normalized lock, condition as loaded",
			s:       lower,
			view:    loaded(lower, sAcct("ACCT#a", "email", "Ada@X.io"), sLock("UNIQ#EMAIL#ada@x.io", "ACCT#a")),
			changes: map[string]string{"email": "Bob@X.io"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#bob@x.io", "UNIQ#EMAIL#ada@x.io"},
			actions: []string{
				upd(`{"email":{"S":"Bob@X.io"}}`, `email = {"S":"Ada@X.io"}`),
				putEmail("bob@x.io"),
				`Delete release-lock accounts PK=UNIQ#EMAIL#ada@x.io SK=LOCK if owner = {"S":"ACCT#a"} [c0 ada@x.io] by ACCT#a`,
			},
		},
		{
			// The same lock, but it is missing: it is put (the rename repairs it).
			name:    "lower: a change of case with the lock missing puts it",
			s:       lower,
			view:    loaded(lower, sAcct("ACCT#a", "email", "Ada@X.io")),
			changes: map[string]string{"email": "ada@x.io"},
			keys:    []string{"ACCT#a", "UNIQ#EMAIL#ada@x.io"},
			actions: []string{
				upd(`{"email":{"S":"ada@x.io"}}`, `email = {"S":"Ada@X.io"}`),
				putEmail("ada@x.io"),
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Planner{c.s}.Rename(c.view, c.changes, c.others, c.seen)
			wantPlan(t, p, err, "rename", c.keys, c.actions...)
			if c.note != (p.Note != "") {
				t.Errorf("note %q; want one: %v", p.Note, c.note)
			}
		})
	}
}

func TestPlanRenameTables(t *testing.T) {
	s := planSchema(LayoutTables)
	view := loaded(s, tDevice("dev-1", "mac_address", "m1", "registration_code", "RC-1"), tMac("m1", "dev-1"), tCode("RC-1"))
	p, err := Planner{s}.Rename(view, map[string]string{"mac_address": "m2", "registration_code": "RC-2"}, nil, nil)
	wantPlan(t, p, err, "rename",
		[]string{"dev-1", "unique_mac_addresses/m2", "unique_mac_addresses/m1", "unique_registration_codes/RC-2", "unique_registration_codes/RC-1"},
		`Update account devices id=dev-1 set={"mac_address":{"S":"m2"},"registration_code":{"S":"RC-2"}} if mac_address = {"S":"m1"} AND registration_code = {"S":"RC-1"} by dev-1`,
		`Put take-lock unique_mac_addresses MacAddress=m2 item={"MacAddress":{"S":"m2"},"owner":{"S":"dev-1"}} if attribute_not_exists(MacAddress) [c0 m2] by dev-1`,
		`Delete release-lock unique_mac_addresses MacAddress=m1 if owner = {"S":"dev-1"} [c0 m1] by dev-1`,
		`Put take-lock unique_registration_codes RegistrationCode=RC-2 item={"RegistrationCode":{"S":"RC-2"},"owner":{"S":"dev-1"}} if attribute_not_exists(RegistrationCode) [c1 RC-2] by dev-1`,
		`Delete release-lock unique_registration_codes RegistrationCode=RC-1 if owner = <absent> [c1 RC-1] by dev-1`,
	)

	// A lock naming another device is left to it.
	view = loaded(s, tDevice("dev-1", "mac_address", "m1"), tMac("m1", "dev-9"))
	p, err = Planner{s}.Rename(view, map[string]string{"mac_address": "m2"}, nil, nil)
	wantPlan(t, p, err, "rename", []string{"dev-1", "unique_mac_addresses/m2", "unique_mac_addresses/m1"},
		`Update account devices id=dev-1 set={"mac_address":{"S":"m2"}} if mac_address = {"S":"m1"} by dev-1`,
		`Put take-lock unique_mac_addresses MacAddress=m2 item={"MacAddress":{"S":"m2"},"owner":{"S":"dev-1"}} if attribute_not_exists(MacAddress) [c0 m2] by dev-1`,
		`ConditionCheck keep-lock unique_mac_addresses MacAddress=m1 if owner = {"S":"dev-9"} [c0 m1] by dev-1`,
	)

	// normalize(old) == normalize(new): only the record changes.
	ls := planSchema(LayoutTables, lowerEmail)
	view = loaded(ls, tDevice("dev-1", "mac_address", "AA:BB"), tMac("aa:bb", "dev-1"))
	p, err = Planner{ls}.Rename(view, map[string]string{"mac_address": "aa:BB"}, nil, nil)
	wantPlan(t, p, err, "rename", []string{"dev-1"},
		`Update account devices id=dev-1 set={"mac_address":{"S":"aa:BB"}} if mac_address = {"S":"AA:BB"} by dev-1`)
}

func TestPlanDelete(t *testing.T) {
	s := planSchema(LayoutSingle)
	lower := planSchema(LayoutSingle, lowerEmail)
	tb := planSchema(LayoutTables)
	cases := []struct {
		name    string
		s       *Schema
		view    AccountView
		others  OthersHold
		keys    []string
		actions []string
	}{
		{
			name: "single, both locks its own",
			s:    s,
			view: loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "ada"), sLock("UNIQ#EMAIL#a@x", "ACCT#a"), sLock("UNIQ#HANDLE#ada", "ACCT#a")),
			keys: []string{"ACCT#a", "UNIQ#EMAIL#a@x", "UNIQ#HANDLE#ada"},
			actions: []string{
				`Delete account accounts PK=ACCT#a SK=PROFILE if email = {"S":"a@x"} AND username = {"S":"ada"} by ACCT#a`,
				`Delete release-lock accounts PK=UNIQ#EMAIL#a@x SK=LOCK if owner = {"S":"ACCT#a"} [c0 a@x] by ACCT#a`,
				`Delete release-lock accounts PK=UNIQ#HANDLE#ada SK=LOCK if owner = {"S":"ACCT#a"} [c1 ada] by ACCT#a`,
			},
		},
		{
			name:   "single, no username, ownerless email lock held by others, missing nothing else",
			s:      s,
			view:   loaded(s, sAcct("ACCT#a", "email", "a@x"), sLock("UNIQ#EMAIL#a@x")),
			others: func(int, string) bool { return true },
			keys:   []string{"ACCT#a", "UNIQ#EMAIL#a@x"},
			actions: []string{
				`Delete account accounts PK=ACCT#a SK=PROFILE if email = {"S":"a@x"} AND username = <absent> by ACCT#a`,
				`ConditionCheck keep-lock accounts PK=UNIQ#EMAIL#a@x SK=LOCK if owner = <absent> [c0 a@x] by ACCT#a`,
			},
		},
		{
			name: "single, username lock names another account, email lock missing",
			s:    s,
			view: loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "dave"), sLock("UNIQ#HANDLE#dave", "ACCT#e")),
			keys: []string{"ACCT#a", "UNIQ#HANDLE#dave"},
			actions: []string{
				`Delete account accounts PK=ACCT#a SK=PROFILE if email = {"S":"a@x"} AND username = {"S":"dave"} by ACCT#a`,
				`ConditionCheck keep-lock accounts PK=UNIQ#HANDLE#dave SK=LOCK if owner = {"S":"ACCT#e"} [c1 dave] by ACCT#a`,
			},
		},
		{
			name: "lower: the condition holds the value as loaded, the lock is the normalized one",
			s:    lower,
			view: loaded(lower, sAcct("ACCT#a", "email", "Ada@X.io"), sLock("UNIQ#EMAIL#ada@x.io", "ACCT#a")),
			keys: []string{"ACCT#a", "UNIQ#EMAIL#ada@x.io"},
			actions: []string{
				`Delete account accounts PK=ACCT#a SK=PROFILE if email = {"S":"Ada@X.io"} AND username = <absent> by ACCT#a`,
				`Delete release-lock accounts PK=UNIQ#EMAIL#ada@x.io SK=LOCK if owner = {"S":"ACCT#a"} [c0 ada@x.io] by ACCT#a`,
			},
		},
		{
			name: "tables",
			s:    tb,
			view: loaded(tb, tDevice("dev-1", "mac_address", "m1", "registration_code", "RC-1"), tMac("m1", "dev-1"), tCode("RC-1")),
			keys: []string{"dev-1", "unique_mac_addresses/m1", "unique_registration_codes/RC-1"},
			actions: []string{
				`Delete account devices id=dev-1 if mac_address = {"S":"m1"} AND registration_code = {"S":"RC-1"} by dev-1`,
				`Delete release-lock unique_mac_addresses MacAddress=m1 if owner = {"S":"dev-1"} [c0 m1] by dev-1`,
				`Delete release-lock unique_registration_codes RegistrationCode=RC-1 if owner = <absent> [c1 RC-1] by dev-1`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Planner{c.s}.Delete(c.view, c.others, nil)
			wantPlan(t, p, err, "delete", c.keys, c.actions...)
		})
	}

	// A non-string value is compared as loaded too.
	it := sAcct("ACCT#n", "username", "n")
	it["email"] = N("5")
	p, err := Planner{s}.Delete(loaded(s, it), nil, nil)
	wantPlan(t, p, err, "delete", []string{"ACCT#n"},
		`Delete account accounts PK=ACCT#n SK=PROFILE if email = {"N":"5"} AND username = {"S":"n"} by ACCT#n`)
}

func TestPlanRepairs(t *testing.T) {
	s := planSchema(LayoutSingle)
	tb := planSchema(LayoutTables)
	holders := func(p Problem, ids ...string) Problem { p.Accounts = ids; return p }

	t.Run("orphan with owner, single", func(t *testing.T) {
		p, err := Planner{s}.RepairOrphan(s.LockProblem(OrphanLock, 0, "old@x", "ACCT#b"), sLock("UNIQ#EMAIL#old@x", "ACCT#b").item, ReclaimPrefix+"t")
		wantPlan(t, p, err, "repair", []string{"UNIQ#EMAIL#old@x", "ACCT#b"},
			`Delete orphan-lock accounts PK=UNIQ#EMAIL#old@x SK=LOCK if owner = {"S":"ACCT#b"} [c0 old@x]`,
			`ConditionCheck owner-gone accounts PK=ACCT#b SK=PROFILE if attribute_not_exists(PK) OR email <> {"S":"old@x"} [c0 old@x] by ACCT#b`)
	})
	t.Run("orphan without owner, single", func(t *testing.T) {
		p, err := Planner{s}.RepairOrphan(s.LockProblem(OrphanLock, 1, "ghost", ""), sLock("UNIQ#HANDLE#ghost").item, ReclaimPrefix+"t")
		// Never a delete guarded by "no owner": the lock is claimed first.
		wantPlan(t, p, err, "repair", []string{"UNIQ#HANDLE#ghost"},
			`Update claim-lock accounts PK=UNIQ#HANDLE#ghost SK=LOCK set={"owner":{"S":"locktable:reclaim:t"}} if attribute_exists(PK) AND owner = <absent> [c1 ghost] by locktable:reclaim:t`)
		if p.Reclaim == nil || p.Reclaim.Claim != ReclaimPrefix+"t" || p.Reclaim.Resume {
			t.Errorf("reclaim %+v; want a new claim", p.Reclaim)
		}
	})
	t.Run("orphan with owner, tables", func(t *testing.T) {
		p, err := Planner{tb}.RepairOrphan(tb.LockProblem(OrphanLock, 1, "RC-9", "dev-9"), tCode("RC-9", "dev-9").item, ReclaimPrefix+"t")
		wantPlan(t, p, err, "repair", []string{"unique_registration_codes/RC-9", "dev-9"},
			`Delete orphan-lock unique_registration_codes RegistrationCode=RC-9 if owner = {"S":"dev-9"} [c1 RC-9]`,
			`ConditionCheck owner-gone devices id=dev-9 if attribute_not_exists(id) OR registration_code <> {"S":"RC-9"} [c1 RC-9] by dev-9`)
	})
	t.Run("missing, single", func(t *testing.T) {
		h := loaded(s, sAcct("ACCT#b", "email", "b@x", "username", "bob"), sLock("UNIQ#EMAIL#b@x", "ACCT#b"))
		p, err := Planner{s}.RepairMissing(holders(s.LockProblem(MissingLock, 1, "bob", ""), "ACCT#b"), h)
		wantPlan(t, p, err, "repair", []string{"UNIQ#HANDLE#bob", "ACCT#b"},
			`Put take-lock accounts PK=UNIQ#HANDLE#bob SK=LOCK item={"PK":{"S":"UNIQ#HANDLE#bob"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#b"}} if attribute_not_exists(PK) [c1 bob] by ACCT#b`,
			`ConditionCheck account accounts PK=ACCT#b SK=PROFILE if username = {"S":"bob"} by ACCT#b`)
	})
	t.Run("missing, lower: the lock normalized, the check as loaded", func(t *testing.T) {
		ls := planSchema(LayoutSingle, lowerEmail)
		h := loaded(ls, sAcct("ACCT#b", "email", "Bob@X"))
		p, err := Planner{ls}.RepairMissing(holders(ls.LockProblem(MissingLock, 0, "bob@x", ""), "ACCT#b"), h)
		wantPlan(t, p, err, "repair", []string{"UNIQ#EMAIL#bob@x", "ACCT#b"},
			`Put take-lock accounts PK=UNIQ#EMAIL#bob@x SK=LOCK item={"PK":{"S":"UNIQ#EMAIL#bob@x"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#b"}} if attribute_not_exists(PK) [c0 bob@x] by ACCT#b`,
			`ConditionCheck account accounts PK=ACCT#b SK=PROFILE if email = {"S":"Bob@X"} by ACCT#b`)
	})
	t.Run("missing, tables", func(t *testing.T) {
		h := loaded(tb, tDevice("dev-2", "mac_address", "m2"))
		p, err := Planner{tb}.RepairMissing(holders(tb.LockProblem(MissingLock, 0, "m2", ""), "dev-2"), h)
		wantPlan(t, p, err, "repair", []string{"unique_mac_addresses/m2", "dev-2"},
			`Put take-lock unique_mac_addresses MacAddress=m2 item={"MacAddress":{"S":"m2"},"owner":{"S":"dev-2"}} if attribute_not_exists(MacAddress) [c0 m2] by dev-2`,
			`ConditionCheck account devices id=dev-2 if mac_address = {"S":"m2"} by dev-2`)
	})
	t.Run("foreign, single", func(t *testing.T) {
		lock := sLock("UNIQ#EMAIL#c@x", "ACCT#a")
		h := loaded(s, sAcct("ACCT#c", "email", "c@x"), lock)
		p, err := Planner{s}.RepairForeign(holders(s.LockProblem(ForeignLock, 0, "c@x", "ACCT#a"), "ACCT#c"), lock.item, h)
		wantPlan(t, p, err, "repair", []string{"UNIQ#EMAIL#c@x", "ACCT#c"},
			`Update hand-lock accounts PK=UNIQ#EMAIL#c@x SK=LOCK set={"owner":{"S":"ACCT#c"}} if owner = {"S":"ACCT#a"} [c0 c@x] by ACCT#c`,
			`ConditionCheck account accounts PK=ACCT#c SK=PROFILE if email = {"S":"c@x"} by ACCT#c`)
	})
	t.Run("foreign, tables", func(t *testing.T) {
		lock := tMac("m3", "dev-1")
		h := loaded(tb, tDevice("dev-3", "mac_address", "m3"), lock)
		p, err := Planner{tb}.RepairForeign(holders(tb.LockProblem(ForeignLock, 0, "m3", "dev-1"), "dev-3"), lock.item, h)
		wantPlan(t, p, err, "repair", []string{"unique_mac_addresses/m3", "dev-3"},
			`Update hand-lock unique_mac_addresses MacAddress=m3 set={"owner":{"S":"dev-3"}} if owner = {"S":"dev-1"} [c0 m3] by dev-3`,
			`ConditionCheck account devices id=dev-3 if mac_address = {"S":"m3"} by dev-3`)
	})
}

// manyConstraints is a single-table schema with n unique attributes.
func manyConstraints(n int) (*Schema, map[string]string) {
	s := DefaultSchema(LayoutSingle)
	s.Constraints = nil
	attrs := map[string]string{}
	for i := range n {
		attr := fmt.Sprintf("u%03d", i)
		s.Constraints = append(s.Constraints, Constraint{Attr: attr, Prefix: fmt.Sprintf("UNIQ#%03d#", i), Normalize: NormalizeNone})
		attrs[attr] = "v"
	}
	return &s, attrs
}

func TestPlanValidation(t *testing.T) {
	s := planSchema(LayoutSingle)
	tb := planSchema(LayoutTables)
	view := loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "ada"), sLock("UNIQ#EMAIL#a@x", "ACCT#a"))
	emailRoom := MaxPartitionKeyBytes - len("UNIQ#EMAIL#")
	many99, attrs99 := manyConstraints(99)
	many100, attrs100 := manyConstraints(100)
	cases := []struct {
		name  string
		plan  func() (Plan, error)
		field string // "" for no error
		msg   string
	}{
		{"signup, invalid UTF-8", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"email": "a\xffb@x"}) }, "email", "UTF-8"},
		{"signup, control character", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"username": "a\x01b"}) }, "username", "U+0001"},
		{"signup, escape", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"username": "a\x1b[2Jb"}) }, "username", "U+001B"},
		{"signup, DEL", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"email": "a\x7f"}) }, "email", "U+007F"},
		{"signup, C1 control", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"email": "a\u0085"}) }, "email", "U+0085"},
		{"signup, control in another attribute", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"bio": "\n"}) }, "bio", "U+000A"},
		{"signup, key attribute set", func() (Plan, error) { return s.Signup("ACCT#x", map[string]string{"PK": "ACCT#y"}) }, "PK", "key attribute"},
		{"signup, lock key at the limit", func() (Plan, error) {
			return s.Signup("ACCT#x", map[string]string{"email": strings.Repeat("e", emailRoom)})
		}, "", ""},
		{"signup, lock key over the limit after the prefix", func() (Plan, error) {
			return s.Signup("ACCT#x", map[string]string{"email": strings.Repeat("e", emailRoom+1)})
		}, "email", "2048"},
		{"signup, lock key over the limit once normalized (lower grows Ⱥ)", func() (Plan, error) {
			ls := planSchema(LayoutSingle, lowerEmail)
			// U+023A is 2 bytes, its lower case U+2C65 is 3: fits as given, not normalized.
			v := strings.Repeat("\u023a", emailRoom/2)
			if len(v) > emailRoom || len(strings.ToLower(v)) <= emailRoom {
				panic("bad fixture")
			}
			return ls.Signup("ACCT#x", map[string]string{"email": v})
		}, "email", "2048"},
		{"signup tables, lock key at the limit", func() (Plan, error) {
			return tb.Signup("dev-x", map[string]string{"mac_address": strings.Repeat("m", MaxPartitionKeyBytes)})
		}, "", ""},
		{"signup tables, lock key over the limit", func() (Plan, error) {
			return tb.Signup("dev-x", map[string]string{"mac_address": strings.Repeat("m", MaxPartitionKeyBytes+1)})
		}, "mac_address", "2048"},
		{"signup, account id without the prefix", func() (Plan, error) { return s.Signup("USER#1", map[string]string{"email": "a@x"}) }, "account", "ACCT#"},
		{"signup, empty account id", func() (Plan, error) { return s.Signup("", map[string]string{"email": "a@x"}) }, "account", ""},
		{"signup, account id over 2048 bytes", func() (Plan, error) {
			return s.Signup("ACCT#"+strings.Repeat("a", MaxPartitionKeyBytes), map[string]string{"email": "a@x"})
		}, "account", "2048"},
		{"signup, account id with a control character", func() (Plan, error) { return s.Signup("ACCT#\x1b", nil) }, "account", "U+001B"},
		{"signup, 100 actions", func() (Plan, error) { return many99.Signup("ACCT#x", attrs99) }, "", ""},
		{"signup, 101 actions", func() (Plan, error) { return many100.Signup("ACCT#x", attrs100) }, "plan", "101 actions"},
		{"rename, invalid UTF-8", func() (Plan, error) { return Planner{s}.Rename(view, map[string]string{"email": "\xc3"}, nil, nil) }, "email", "UTF-8"},
		{"rename, control character", func() (Plan, error) { return Planner{s}.Rename(view, map[string]string{"username": "x\x00"}, nil, nil) }, "username", "U+0000"},
		{"rename, lock key over the limit", func() (Plan, error) {
			return Planner{s}.Rename(view, map[string]string{"email": strings.Repeat("e", emailRoom+1)}, nil, nil)
		}, "email", "2048"},
		{"rename, not a unique attribute", func() (Plan, error) { return Planner{s}.Rename(view, map[string]string{"bio": "x"}, nil, nil) }, "bio", "unique"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.plan()
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if len(p.Actions) == 0 || len(p.Actions) > MaxActions {
					t.Fatalf("%d actions", len(p.Actions))
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want a *FieldError naming %q", err, err, c.field)
			}
			if fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("FieldError{%q, %q}, want field %q and a message with %q", fe.Field, fe.Msg, c.field, c.msg)
			}
			if !strings.HasPrefix(err.Error(), c.field+": ") {
				t.Errorf("Error() = %q does not start with the field", err.Error())
			}
		})
	}
}

func TestExplain(t *testing.T) {
	s := planSchema(LayoutSingle)
	tb := planSchema(LayoutTables)
	signup, err := s.Signup("ACCT#b0b001", map[string]string{"email": "ada@x", "username": "ada"})
	if err != nil {
		t.Fatal(err)
	}
	view := loaded(s, sAcct("ACCT#b0b001", "email", "ada@x", "username", "dave"), sLock("UNIQ#EMAIL#ada@x", "ACCT#b0b001"), sLock("UNIQ#HANDLE#dave", "ACCT#b0b001"))
	del, err := Planner{s}.Delete(view, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	keepView := loaded(s, sAcct("ACCT#b0b001", "email", "ada@x"), sLock("UNIQ#EMAIL#ada@x", "ACCT#e0e001"))
	rename, err := Planner{s}.Rename(keepView, map[string]string{"email": "new@x", "username": "bob"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := Planner{s}.RepairOrphan(s.LockProblem(OrphanLock, 0, "old@x", "ACCT#b2"), sLock("UNIQ#EMAIL#old@x", "ACCT#b2").item, ReclaimPrefix+"t")
	if err != nil {
		t.Fatal(err)
	}
	foreignLock := sLock("UNIQ#EMAIL#c@x", "ACCT#a")
	foreign, err := Planner{s}.RepairForeign(Problem{Kind: ForeignLock, Value: "c@x", Accounts: []string{"ACCT#c"}, constraint: 0},
		foreignLock.item, loaded(s, sAcct("ACCT#c", "email", "c@x"), foreignLock))
	if err != nil {
		t.Fatal(err)
	}
	tsignup, err := tb.Signup("dev-1", map[string]string{"mac_address": "m1"})
	if err != nil {
		t.Fatal(err)
	}
	tdel, err := Planner{tb}.Delete(loaded(tb, tDevice("dev-1", "mac_address", "m1"), tMac("m1", "dev-1")), nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	acctNow := func(kv ...string) Item { return sAcct("ACCT#b0b001", kv...) }
	numEmail := acctNow("username", "dave")
	numEmail["email"] = N("7")
	cases := []struct {
		name string
		s    *Schema
		a    Action
		now  Item
		want string
	}{
		{"taken, owner named", s, signup.Actions[1], sLock("UNIQ#EMAIL#ada@x", "ACCT#77aa01").item, "email ada@x is taken by ACCT#77aa01"},
		{"taken, no owner", s, signup.Actions[2], sLock("UNIQ#HANDLE#ada").item, "username ada is taken (its lock names no owner)"},
		{"taken, tables", tb, tsignup.Actions[1], tMac("m1", "dev-7").item, "mac_address m1 is taken by dev-7"},
		{"account exists", s, signup.Actions[0], acctNow(), "account ACCT#b0b001 already exists"},
		{"account changed: new value", s, del.Actions[0], acctNow("email", "other@x", "username", "dave"),
			"account ACCT#b0b001 changed since it was loaded: email is now other@x"},
		{"account changed: value gone", s, del.Actions[0], acctNow("username", "dave"),
			"account ACCT#b0b001 changed since it was loaded: email is now absent"},
		{"account changed: value that was absent appeared", s, rename.Actions[0], acctNow("email", "ada@x", "username", "zed"),
			"account ACCT#b0b001 changed since it was loaded: username is now zed"},
		{"account changed: not a string", s, del.Actions[0], numEmail,
			`account ACCT#b0b001 changed since it was loaded: email is now {"N":"7"}`},
		{"account changed: escapes shown, not sent", s, del.Actions[0], acctNow("email", "x\x1b[31m", "username", "dave"),
			`account ACCT#b0b001 changed since it was loaded: email is now x\x1b[31m`},
		{"account gone", s, del.Actions[0], nil, "account ACCT#b0b001 no longer exists"},
		{"release: lock now someone else's", s, del.Actions[2], sLock("UNIQ#HANDLE#dave", "ACCT#e0e001").item, "lock UNIQ#HANDLE#dave belongs to ACCT#e0e001"},
		{"release: lock gone", s, del.Actions[2], nil, "lock UNIQ#HANDLE#dave no longer exists"},
		{"release: owner removed", s, del.Actions[1], sLock("UNIQ#EMAIL#ada@x").item, "lock UNIQ#EMAIL#ada@x changed since it was loaded: it names no owner now"},
		{"release, tables", tb, tdel.Actions[1], tMac("m1", "dev-5").item, "lock unique_mac_addresses/m1 belongs to dev-5"},
		{"keep: lock handed on", s, rename.Actions[2], sLock("UNIQ#EMAIL#ada@x", "ACCT#f0f001").item, "lock UNIQ#EMAIL#ada@x belongs to ACCT#f0f001"},
		{"keep: lock gone", s, rename.Actions[2], nil, "lock UNIQ#EMAIL#ada@x no longer exists"},
		{"orphan: owner changed", s, orphan.Actions[0], sLock("UNIQ#EMAIL#old@x", "ACCT#b3").item, "lock UNIQ#EMAIL#old@x belongs to ACCT#b3"},
		{"orphan: gone", s, orphan.Actions[0], nil, "lock UNIQ#EMAIL#old@x no longer exists"},
		{"owner gone: holds the value again", s, orphan.Actions[1], sAcct("ACCT#b2", "email", "old@x"), "account ACCT#b2 holds email = old@x: the lock is not an orphan"},
		{"hand: owner changed", s, foreign.Actions[0], sLock("UNIQ#EMAIL#c@x", "ACCT#z").item, "lock UNIQ#EMAIL#c@x belongs to ACCT#z"},
		{"hand: holder changed", s, foreign.Actions[1], sAcct("ACCT#c", "email", "d@x"), "account ACCT#c changed since it was loaded: email is now d@x"},
		{"no item where one was needed: generic", s, signup.Actions[1], nil, "put lock UNIQ#EMAIL#ada@x (owner ACCT#b0b001): its condition failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := (Classifier{c.s}).Explain(c.a, c.now); got != c.want {
				t.Fatalf("Explain(%s)\n got %q\nwant %q", actionText(c.a), got, c.want)
			}
		})
	}
}

func TestPurpose(t *testing.T) {
	s := planSchema(LayoutSingle)
	p, err := s.Signup("ACCT#a1f9c3", map[string]string{"email": "ada@lovelace.io"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Actions[1].Purpose(s), "put lock UNIQ#EMAIL#ada@lovelace.io (owner ACCT#a1f9c3)"; got != want {
		t.Fatalf("Purpose = %q, want %q", got, want)
	}
	if got, want := p.Actions[0].Purpose(s), "put account ACCT#a1f9c3"; got != want {
		t.Fatalf("Purpose = %q, want %q", got, want)
	}
	isPK := func(a string) bool { return a == "PK" }
	for _, c := range []struct {
		cond Cond
		want string
	}{
		{Cond{Kind: CondNotExists, Attr: "PK"}, "only if no item with this key exists"},
		{Cond{Kind: CondExists, Attr: "PK"}, "only if the item exists"},
		{Cond{Kind: CondEquals, Attr: "email", Value: S("ada@x.io")}, `only if its email is "ada@x.io"`},
		{Cond{Kind: CondEquals, Attr: "email", Absent: true}, "only if it has no email"},
		{Cond{Kind: CondEquals, Attr: "n", Value: N("7")}, `only if its n is 7`},
		{Cond{Kind: CondAbsentOrDiffers, Key: "PK", Attr: "email", Value: S("a\x1b[31m")}, `only if the item does not exist or its email is not "a\x1b[31m"`},
	} {
		if got := c.cond.Sentence(isPK); got != c.want {
			t.Errorf("Sentence(%+v) = %q, want %q", c.cond, got, c.want)
		}
	}
	rename := Action{Kind: ActUpdate, Role: RoleAccount, Table: s.Table, Key: s.AccountKey("ACCT#a1"),
		Set: map[string]Value{"username": S("ada")}, Remove: []string{"email"}, Constraint: -1}
	if got, want := rename.Does(s), `update account ACCT#a1: set username to "ada", remove email`; got != want {
		t.Errorf("Does = %q, want %q", got, want)
	}
}

func TestApplied(t *testing.T) {
	put := Action{Kind: ActPut, Item: Item{"PK": S("L"), "owner": S("A")}}
	upd := Action{Kind: ActUpdate, Set: map[string]Value{"email": S("new")}, Remove: []string{"nick"}}
	cases := []struct {
		name string
		a    Action
		now  Item
		want bool
	}{
		{"put: there as put", put, Item{"PK": S("L"), "owner": S("A")}, true},
		{"put: missing", put, nil, false},
		{"put: another owner", put, Item{"PK": S("L"), "owner": S("B")}, false},
		{"put: another type", put, Item{"PK": S("L"), "owner": N("1")}, false},
		{"put: an attribute more", put, Item{"PK": S("L"), "owner": S("A"), "x": S("1")}, false},
		{"put: an attribute less", put, Item{"PK": S("L")}, false},
		{"delete: gone", Action{Kind: ActDelete}, nil, true},
		{"delete: still there", Action{Kind: ActDelete}, Item{"PK": S("L")}, false},
		{"update: set and removed", upd, Item{"PK": S("A"), "email": S("new"), "other": S("kept")}, true},
		{"update: old value", upd, Item{"PK": S("A"), "email": S("old")}, false},
		{"update: removed attribute still there", upd, Item{"PK": S("A"), "email": S("new"), "nick": S("n")}, false},
		{"update: item gone", upd, nil, false},
		{"check: nothing to show", Action{Kind: ActCheck}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Applied(c.a, c.now); got != c.want {
				t.Fatalf("Applied = %v, want %v", got, c.want)
			}
		})
	}
}

// TestPlanKeysMatchActions: every key a plan reports names an action's item.
func TestPlanKeysMatchActions(t *testing.T) {
	s := planSchema(LayoutSingle)
	view := loaded(s, sAcct("ACCT#a", "email", "a@x", "username", "ada"), sLock("UNIQ#EMAIL#a@x", "ACCT#a"), sLock("UNIQ#HANDLE#ada", "ACCT#b"))
	p, err := Planner{s}.Rename(view, map[string]string{"email": "b@x", "username": "bo"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, a := range p.Actions {
		texts = append(texts, a.KeyText(s))
	}
	if !reflect.DeepEqual(texts, p.Keys) {
		t.Fatalf("keys %q, action keys %q", p.Keys, texts)
	}
}

// TestPlanMustType: what a person types back to send a plan, where y is
// not enough; the CLI and the terminal UI both ask for it.
func TestPlanMustType(t *testing.T) {
	s := planSchema(LayoutSingle)
	must := func(p Plan, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p.MustType
	}
	a := loaded(s, sAcct("ACCT#a", "email", "a@x"), sLock("UNIQ#EMAIL#a@x", "ACCT#a"))
	h := loaded(s, sAcct("ACCT#c", "email", "c@x"))
	tests := []struct {
		name, got, want string
	}{
		{"delete: the account's key", must(Planner{s}.Delete(a, nil, nil)), "ACCT#a"},
		{"orphan naming an owner: the owner", must(Planner{s}.RepairOrphan(s.LockProblem(OrphanLock, 0, "old@x", "ACCT#b"), sLock("UNIQ#EMAIL#old@x", "ACCT#b").item, ReclaimPrefix+"t")), "ACCT#b"},
		{"orphan naming none", must(Planner{s}.RepairOrphan(s.LockProblem(OrphanLock, 1, "ghost", ""), sLock("UNIQ#HANDLE#ghost").item, ReclaimPrefix+"t")), ""},
		{"foreign: the owner it names", must(Planner{s}.RepairForeign(Problem{Kind: ForeignLock, Value: "c@x", Accounts: []string{"ACCT#c"}, constraint: 0},
			sLock("UNIQ#EMAIL#c@x", "ACCT#z").item, h)), "ACCT#z"},
		{"missing: no lock", must(Planner{s}.RepairMissing(Problem{Kind: MissingLock, Value: "c@x", Accounts: []string{"ACCT#c"}, constraint: 0}, h)), ""},
		{"a claim, step 1: no owner yet", must(Planner{s}.Reclaim(s.LockProblem(OrphanLock, 1, "ghost", ""), ReclaimPrefix+"t", false)), ""},
		{"a claim left behind: the claim", must(Planner{s}.Reclaim(s.LockProblem(OrphanLock, 1, "ghost", ReclaimPrefix+"t"), ReclaimPrefix+"t", true)), ReclaimPrefix + "t"},
		{"signup", must(s.Signup("ACCT#n", map[string]string{"email": "n@x"})), ""},
		{"rename", must(Planner{s}.Rename(a, map[string]string{"email": "b@x"}, nil, nil)), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: MustType %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestNewAccountID(t *testing.T) {
	s := planSchema(LayoutSingle)
	a, b := s.NewAccountID(), s.NewAccountID()
	if !strings.HasPrefix(a, s.AccountPrefix) || len(a) != len(s.AccountPrefix)+12 || a == b {
		t.Errorf("NewAccountID: %q then %q", a, b)
	}
	if _, err := s.Signup(a, nil); err != nil {
		t.Errorf("a new id cannot sign up: %v", err)
	}
}

func TestNewAccountIDLike(t *testing.T) {
	s := planSchema(LayoutTables)
	s.AccountPrefix = ""
	for _, tt := range []struct {
		ids  []string
		want string
	}{
		{[]string{"dev-0a1b", "dev-77", "dev-x9"}, "dev-"},
		{[]string{"dev-0a1b", "dev-77", "srv_1"}, "dev-"},
		{[]string{"dev-0a1b", "srv_1"}, ""}, // no majority
		{[]string{"7f3a", "19c0"}, ""},
		{nil, ""},
	} {
		id := s.NewAccountIDLike(tt.ids)
		if !strings.HasPrefix(id, tt.want) || len(id) != len(tt.want)+12 {
			t.Errorf("NewAccountIDLike(%q) = %q, want %q and 12 hex digits", tt.ids, id, tt.want)
		}
	}
	s.AccountPrefix = "ACCT#"
	if id := s.NewAccountIDLike([]string{"dev-1", "dev-2"}); !strings.HasPrefix(id, "ACCT#") {
		t.Errorf("with an account prefix: %q", id)
	}
}

// TestTypedBack: a key is typed back as the write form shows it (a
// backslash doubled, a control character as its escape), or pasted as
// `c` copied it: a key with a backslash but nothing to escape is copied
// raw, and pasted back it must be taken, not read as an escape
// (ACCT#a\x41 is not ACCT#aA).
func TestTypedBack(t *testing.T) {
	for _, tt := range []struct {
		key, typed string
		ok         bool
	}{
		{"ACCT#a1", "ACCT#a1", true},
		{"ACCT#a1", "ACCT#a2", false},
		{"ACCT#\x1b[2J", `ACCT#\x1b[2J`, true},
		{`ACCT#a\x41`, `ACCT#a\\x41`, true}, // as the preview asks for it
		{`ACCT#a\x41`, `ACCT#a\x41`, true},  // as c copied it
		{`ACCT#a\x41`, "ACCT#aA", false},
		{"ACCT#aA", `ACCT#a\x41`, true}, // the form's escape of A
	} {
		if got := (Plan{MustType: tt.key}).TypedBack(tt.typed); got != tt.ok {
			t.Errorf("key %q typed %q: %v, want %v", tt.key, tt.typed, got, tt.ok)
		}
	}
}
