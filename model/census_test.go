package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// row is one item as a scan reads it: from a table.
type row struct {
	table string
	item  Item
}

// attrs builds an item from name, value pairs; a string value is an S.
func attrs(kv ...any) Item {
	it := Item{}
	for i := 0; i < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			it[name] = S(v)
		case Value:
			it[name] = v
		default:
			panic(fmt.Sprintf("attrs: %s: %T is neither string nor Value", name, v))
		}
	}
	return it
}

// withOwner adds the owner attribute when one is given (a string or Value).
func withOwner(it Item, owner []any) Item {
	if len(owner) > 0 {
		for k, v := range attrs("owner", owner[0]) {
			it[k] = v
		}
	}
	return it
}

// acct is an account of the default single layout.
func acct(id string, kv ...any) row {
	it := attrs(kv...)
	it["PK"], it["SK"] = S(id), S("PROFILE")
	return row{"accounts", it}
}

// lock is a lock of the default single layout with pk as its key and, when
// given, an owner.
func lock(pk string, owner ...any) row {
	return row{"accounts", withOwner(attrs("PK", pk, "SK", "LOCK"), owner)}
}

// device is a record of the default tables layout.
func device(id string, kv ...any) row {
	it := attrs(kv...)
	it["id"] = S(id)
	return row{"devices", it}
}

// macLock and codeLock are locks in the lock tables of the default tables
// layout.
func macLock(v string, owner ...any) row {
	return row{"unique_mac_addresses", withOwner(attrs("MacAddress", v), owner)}
}

func codeLock(v string, owner ...any) row {
	return row{"unique_registration_codes", withOwner(attrs("RegistrationCode", v), owner)}
}

func censusOf(s *Schema, rows []row) *Census {
	c := NewCensus(s, testNow)
	for _, r := range rows {
		c.Add(r.table, r.item)
	}
	return c
}

// testNow is the time the census tests judge TTLs at: 2025-12-01 14:40 UTC.
const testNow = 1_764_600_000

// withTTL is s with TTL attributes: ttl on the account table (its
// accounts and the locks beside them), expires on each lock table.
func withTTL(s Schema) Schema {
	s.TTLAttr = "ttl"
	s.Constraints = slices.Clone(s.Constraints)
	for i := range s.Constraints {
		if !s.Constraints[i].InAccountTable() {
			s.Constraints[i].TTLAttr = "expires"
		}
	}
	return s
}

// problemsJSON renders each problem as the JSON of `locktable check`.
func problemsJSON(t *testing.T, ps []Problem) []string {
	t.Helper()
	out := []string{}
	for _, p := range ps {
		b, err := marshal(p)
		if err != nil {
			t.Fatalf("marshal %+v: %v", p, err)
		}
		out = append(out, string(b))
	}
	return out
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := marshal(s)
	return string(b)
}

func checkProblems(t *testing.T, s *Schema, got []Problem, want []string) {
	t.Helper()
	if got == nil {
		t.Errorf("problems are nil, want a non-nil slice")
	}
	gotJSON := problemsJSON(t, got)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(gotJSON, want) {
		t.Errorf("problems:\n got %s\nwant %s", strings.Join(gotJSON, "\n     "), strings.Join(want, "\n     "))
	}
	for _, p := range got {
		if ci := p.ConstraintIndex(); ci < 0 || ci >= len(s.Constraints) || s.Constraints[ci].Attr != p.Constraint {
			t.Errorf("problem %s %q has constraint index %d", p.Constraint, p.Value, ci)
		}
	}
}

func checkCounts(t *testing.T, c *Census, want [3]int) {
	t.Helper()
	if got := [3]int{c.Scanned, c.Accounts, c.Locks}; got != want {
		t.Errorf("scanned, accounts, locks = %v, want %v", got, want)
	}
}

type censusCase struct {
	name   string
	schema *Schema
	rows   []row
	counts [3]int   // scanned, accounts, locks
	want   []string // the problems as JSON, in report order
}

// longEmail is an email whose lock key, "UNIQ#EMAIL#" + it, is 2049 bytes.
var longEmail = strings.Repeat("a", MaxPartitionKeyBytes-len("UNIQ#EMAIL#")+1)

func censusCases() []censusCase {
	return append([]censusCase{
		{
			name:   "consistent account and locks",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a1", "email", "a@x.io", "username", "ada"),
				lock("UNIQ#EMAIL#a@x.io", "ACCT#a1"),
				lock("UNIQ#HANDLE#ada", "ACCT#a1"),
			},
			counts: [3]int{3, 1, 2},
		},
		{
			name:   "absent, null and empty values expect no lock",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a1"),
				acct("ACCT#a2", "email", Null(), "username", ""),
			},
			counts: [3]int{2, 2, 0},
		},
		{
			name:   "missing_lock",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#b2", "email", "b@x.io", "username", "bob"),
				lock("UNIQ#EMAIL#b@x.io", "ACCT#b2"),
			},
			counts: [3]int{2, 1, 1},
			want: []string{
				`{"kind":"missing_lock","constraint":"username","value":"bob","accounts":["ACCT#b2"]}`,
			},
		},
		{
			name:   "orphan_lock with owner",
			schema: singleSchema(),
			rows:   []row{lock("UNIQ#EMAIL#old@x.io", "ACCT#b2")},
			counts: [3]int{1, 0, 1},
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"old@x.io","lock":{"PK":"UNIQ#EMAIL#old@x.io","SK":"LOCK"},"owner":"ACCT#b2","accounts":[]}`,
			},
		},
		{
			name:   "orphan_lock without owner",
			schema: singleSchema(),
			rows:   []row{acct("ACCT#a1", "username", "ada"), lock("UNIQ#HANDLE#ada"), lock("UNIQ#HANDLE#ghost")},
			counts: [3]int{3, 1, 2},
			want: []string{
				`{"kind":"orphan_lock","constraint":"username","value":"ghost","lock":{"PK":"UNIQ#HANDLE#ghost","SK":"LOCK"},"accounts":[]}`,
			},
		},
		{
			name:   "non-normalized lock key under lower: orphan for the raw value, missing_lock for the normalized one",
			schema: singleSchema(normalizeFirst(NormalizeLower)),
			rows: []row{
				acct("ACCT#a", "email", "Ada@x.io"),
				lock("UNIQ#EMAIL#Ada@x.io", "ACCT#a"),
			},
			counts: [3]int{2, 1, 1},
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"Ada@x.io","lock":{"PK":"UNIQ#EMAIL#Ada@x.io","SK":"LOCK"},"owner":"ACCT#a","accounts":[]}`,
				`{"kind":"missing_lock","constraint":"email","value":"ada@x.io","accounts":["ACCT#a"]}`,
			},
		},
		{
			name:   "normalized lock under casefold matches the account",
			schema: singleSchema(normalizeFirst(NormalizeCasefold)),
			rows: []row{
				acct("ACCT#a", "email", "Straße@X.io"),
				lock("UNIQ#EMAIL#strasse@x.io", "ACCT#a"),
			},
			counts: [3]int{2, 1, 1},
		},
		{
			name:   "foreign_lock",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#b", "email", "a@x.io"),
				acct("ACCT#a", "email", "a@x.io"),
				lock("UNIQ#EMAIL#a@x.io", "ACCT#z"),
				acct("ACCT#z", "email", "z@x.io"),
				lock("UNIQ#EMAIL#z@x.io", "ACCT#z"),
			},
			counts: [3]int{5, 3, 2},
			want: []string{
				`{"kind":"duplicate_value","constraint":"email","value":"a@x.io","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"owner":"ACCT#z","accounts":["ACCT#a","ACCT#b"]}`,
				`{"kind":"foreign_lock","constraint":"email","value":"a@x.io","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"owner":"ACCT#z","accounts":["ACCT#a","ACCT#b"]}`,
			},
		},
		{
			// The census keeps account ids without the account prefix: an
			// owner without it, or one whose rest begins as the census
			// marks ids kept whole, still reads back as it was.
			name:   "owners outside the account prefix read back whole",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#\xffz", "email", "a@x.io", "username", "z"),
				lock("UNIQ#EMAIL#a@x.io", "\xffz"),
				lock("UNIQ#HANDLE#z", "ACCT#\xffz"),
				lock("UNIQ#HANDLE#q", "q"),
			},
			counts: [3]int{4, 1, 3},
			want: []string{
				`{"kind":"foreign_lock","constraint":"email","value":"a@x.io","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"owner":"\ufffdz","accounts":["ACCT#\ufffdz"]}`,
				`{"kind":"orphan_lock","constraint":"username","value":"q","lock":{"PK":"UNIQ#HANDLE#q","SK":"LOCK"},"owner":"q","accounts":[]}`,
			},
		},
		{
			name:   "lock owned by one of several holders: only duplicate_value",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#b", "email", "a@x.io"),
				acct("ACCT#a", "email", "a@x.io"),
				lock("UNIQ#EMAIL#a@x.io", "ACCT#b"),
			},
			counts: [3]int{3, 2, 1},
			want: []string{
				`{"kind":"duplicate_value","constraint":"email","value":"a@x.io","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"owner":"ACCT#b","accounts":["ACCT#a","ACCT#b"]}`,
			},
		},
		{
			// Overlapping reads (a retried page, a backend that ignores
			// scan segments) must not turn one account into a duplicate.
			name:   "an account read twice is one holder",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a", "username", "ada"),
				lock("UNIQ#HANDLE#ada", "ACCT#a"),
				acct("ACCT#a", "username", "ada"),
			},
			counts: [3]int{3, 2, 1},
		},
		{
			name:   "lock without owner with a holder is fine",
			schema: singleSchema(),
			rows:   []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io")},
			counts: [3]int{2, 1, 1},
		},
		{
			name:   "duplicate_value with three holders, sorted",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#c", "username", "ada"),
				acct("ACCT#a", "username", "ada"),
				acct("ACCT#b", "username", "ada"),
			},
			counts: [3]int{3, 3, 0},
			want: []string{
				`{"kind":"duplicate_value","constraint":"username","value":"ada","accounts":["ACCT#a","ACCT#b","ACCT#c"]}`,
				`{"kind":"missing_lock","constraint":"username","value":"ada","accounts":["ACCT#a","ACCT#b","ACCT#c"]}`,
			},
		},
		{
			name:   "invalid_value for non-string attributes",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a", "email", N("42"), "username", Value{Kind: KindBOOL, Bool: true}),
				acct("ACCT#b", "username", Value{Kind: KindSS, Strings: []string{"<x>"}}),
			},
			counts: [3]int{2, 2, 0},
			want: []string{
				`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"42\"}","accounts":["ACCT#a"]}`,
				`{"kind":"invalid_value","constraint":"username","value":"{\"BOOL\":true}","accounts":["ACCT#a"]}`,
				`{"kind":"invalid_value","constraint":"username","value":"{\"SS\":[\"<x>\"]}","accounts":["ACCT#b"]}`,
			},
		},
		{
			name:   "invalid_value for an oversize value",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a", "email", longEmail),
				acct("ACCT#b", "email", longEmail[1:]),
				lock("UNIQ#EMAIL#"+longEmail[1:], "ACCT#b"),
			},
			counts: [3]int{3, 2, 1},
			want: []string{
				`{"kind":"invalid_value","constraint":"email","value":` + jsonString(`{"S":"`+longEmail+`"}`) + `,"accounts":["ACCT#a"]}`,
			},
		},
		{
			name:   "invalid_value for a non-string owner",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#a", "email", "a@x.io"),
				lock("UNIQ#EMAIL#a@x.io", N("7")),
			},
			counts: [3]int{2, 1, 1},
			want: []string{
				`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"7\"}","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"accounts":[]}`,
			},
		},
		{
			name:   "items that are neither accounts nor locks are counted, not judged",
			schema: singleSchema(),
			rows: []row{
				{"accounts", attrs("PK", "ACCT#a", "SK", "ORDER#1", "email", "a@x.io")},
				{"accounts", attrs("PK", "USER#1", "SK", "PROFILE", "email", "u@x.io")},
				{"accounts", attrs("PK", "UNIQ#PHONE#1", "SK", "LOCK")},
				{"accounts", attrs("PK", "UNIQ#EMAIL#z@x.io", "SK", "PROFILE")},
				{"accounts", attrs("PK", N("1"), "SK", "PROFILE", "email", "n@x.io")},
				{"accounts", attrs("SK", "PROFILE", "email", "none@x.io")},
				{"orders", attrs("PK", "ACCT#a", "SK", "PROFILE", "email", "o@x.io")},
				{"orders", attrs("PK", "UNIQ#EMAIL#o@x.io", "SK", "LOCK")},
			},
			counts: [3]int{8, 0, 0},
		},
		{
			name:   "layout tables: locks in lock tables",
			schema: tablesSchema(),
			rows: []row{
				device("d1", "mac_address", "aa:bb", "registration_code", "R1"),
				macLock("aa:bb", "d1"),
				device("d3", "mac_address", "cc"),
				macLock("cc", "d1"),
				codeLock("R9", "d2"),
				codeLock("R8"),
				codeLock("R7", Value{Kind: KindL}),
				device("d4", "mac_address", N("5")),
				{"unique_registration_codes", attrs("RegistrationCode", N("1"))},
				{"unique_serials", attrs("Serial", "S1")},
			},
			counts: [3]int{10, 3, 5},
			want: []string{
				`{"kind":"foreign_lock","constraint":"mac_address","value":"cc","lock":{"MacAddress":"cc"},"lock_table":"unique_mac_addresses","owner":"d1","accounts":["d3"]}`,
				`{"kind":"invalid_value","constraint":"mac_address","value":"{\"N\":\"5\"}","accounts":["d4"]}`,
				`{"kind":"missing_lock","constraint":"registration_code","value":"R1","accounts":["d1"]}`,
				`{"kind":"orphan_lock","constraint":"registration_code","value":"R7","lock":{"RegistrationCode":"R7"},"lock_table":"unique_registration_codes","accounts":[]}`,
				`{"kind":"orphan_lock","constraint":"registration_code","value":"R8","lock":{"RegistrationCode":"R8"},"lock_table":"unique_registration_codes","accounts":[]}`,
				`{"kind":"orphan_lock","constraint":"registration_code","value":"R9","lock":{"RegistrationCode":"R9"},"lock_table":"unique_registration_codes","owner":"d2","accounts":[]}`,
				`{"kind":"invalid_value","constraint":"registration_code","value":"{\"L\":[]}","lock":{"RegistrationCode":"R7"},"lock_table":"unique_registration_codes","accounts":[]}`,
			},
		},
		{
			name: "order: constraint order (not name), then value, then kind",
			schema: singleSchema(func(s *Schema) {
				s.Constraints[0], s.Constraints[1] = s.Constraints[1], s.Constraints[0]
			}),
			rows: []row{
				acct("ACCT#c", "email", N("1")),
				lock("UNIQ#EMAIL#c@x"),
				acct("ACCT#a", "email", "b@x", "username", "zed"),
				acct("ACCT#b", "email", "a@x", "username", "zed"),
			},
			counts: [3]int{4, 3, 1},
			want: []string{
				`{"kind":"duplicate_value","constraint":"username","value":"zed","accounts":["ACCT#a","ACCT#b"]}`,
				`{"kind":"missing_lock","constraint":"username","value":"zed","accounts":["ACCT#a","ACCT#b"]}`,
				`{"kind":"missing_lock","constraint":"email","value":"a@x","accounts":["ACCT#b"]}`,
				`{"kind":"missing_lock","constraint":"email","value":"b@x","accounts":["ACCT#a"]}`,
				`{"kind":"orphan_lock","constraint":"email","value":"c@x","lock":{"PK":"UNIQ#EMAIL#c@x","SK":"LOCK"},"accounts":[]}`,
				`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"1\"}","accounts":["ACCT#c"]}`,
			},
		},
		{
			// Problems are built invalid_value first; only the kind puts
			// duplicate_value before it when the values are equal.
			name:   "order: kind breaks ties between equal values",
			schema: singleSchema(),
			rows: []row{
				acct("ACCT#0", "email", N("42")),
				acct("ACCT#a", "email", `{"N":"42"}`),
				acct("ACCT#b", "email", `{"N":"42"}`),
			},
			counts: [3]int{3, 3, 0},
			want: []string{
				`{"kind":"duplicate_value","constraint":"email","value":"{\"N\":\"42\"}","accounts":["ACCT#a","ACCT#b"]}`,
				`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"42\"}","accounts":["ACCT#0"]}`,
				`{"kind":"missing_lock","constraint":"email","value":"{\"N\":\"42\"}","accounts":["ACCT#a","ACCT#b"]}`,
			},
		},
	}, spellingCases()...)
}

func TestCensusProblems(t *testing.T) {
	for _, tt := range censusCases() {
		t.Run(tt.name, func(t *testing.T) {
			c := censusOf(tt.schema, tt.rows)
			checkCounts(t, c, tt.counts)
			checkProblems(t, tt.schema, c.Problems(), tt.want)
		})
	}
}

// TestCensusOrder: a census's problems do not depend on the order its
// items come in (a scan's segments interleave at random): every case,
// reversed and shuffled, gives what it gives in order.
func TestCensusOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, tt := range censusCases() {
		t.Run(tt.name, func(t *testing.T) {
			want := problemsJSON(t, censusOf(tt.schema, tt.rows).Problems())
			rows := slices.Clone(tt.rows)
			slices.Reverse(rows)
			for i := range 8 {
				got := problemsJSON(t, censusOf(tt.schema, rows).Problems())
				if !slices.Equal(got, want) {
					t.Fatalf("order %d: %v\nin order: %v", i, got, want)
				}
				r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			}
		})
	}
}

func TestReportJSON(t *testing.T) {
	tests := []struct {
		name string
		rows []row
		want string
	}{
		{
			name: "the example of PATTERN.md",
			rows: []row{
				acct("ACCT#a1", "email", "a@x.io", "username", "ada"),
				lock("UNIQ#EMAIL#a@x.io", "ACCT#a1"),
				lock("UNIQ#HANDLE#ada", "ACCT#a1"),
				acct("ACCT#b2", "email", "b@x.io", "username", "bob"),
				lock("UNIQ#EMAIL#b@x.io", "ACCT#b2"),
				lock("UNIQ#EMAIL#old@x.io", "ACCT#b2"),
			},
			// Constraint order: email (the default's first) before username.
			want: `{"table":"accounts","scanned_items":6,"accounts":2,"locks":4,"reservations":0,"problems":[` +
				`{"kind":"orphan_lock","constraint":"email","value":"old@x.io","lock":{"PK":"UNIQ#EMAIL#old@x.io","SK":"LOCK"},"owner":"ACCT#b2","accounts":[]},` +
				`{"kind":"missing_lock","constraint":"username","value":"bob","accounts":["ACCT#b2"]}]}`,
		},
		{
			name: "no problems",
			rows: []row{acct("ACCT#a1")},
			want: `{"table":"accounts","scanned_items":1,"accounts":1,"locks":0,"reservations":0,"problems":[]}`,
		},
		{
			name: "empty table",
			want: `{"table":"accounts","scanned_items":0,"accounts":0,"locks":0,"reservations":0,"problems":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := singleSchema()
			c := censusOf(s, tt.rows)
			r := Report{Table: s.Table, ScannedItems: c.Scanned, Accounts: c.Accounts, Locks: c.Locks, Problems: c.Problems()}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("report JSON\n got %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestReportCounts(t *testing.T) {
	tests := []struct {
		name string
		rows []row
		want map[ProblemKind]int
	}{
		{"none", nil, map[ProblemKind]int{}},
		{"some", []row{
			acct("ACCT#a", "username", "ada"),
			acct("ACCT#b", "username", "ada"),
			lock("UNIQ#EMAIL#x"),
			lock("UNIQ#EMAIL#y"),
		}, map[ProblemKind]int{DuplicateValue: 1, MissingLock: 1, OrphanLock: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Report{Problems: censusOf(singleSchema(), tt.rows).Problems()}
			if got := r.Counts(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Counts = %v, want %v", got, tt.want)
			}
		})
	}
}

// keyString renders a key reference as "table {a=1,b=2}".
func keyString(r KeyRef) string {
	var parts []string
	for k, v := range r.Key {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return r.Table + " {" + strings.Join(parts, ",") + "}"
}

func TestInvolved(t *testing.T) {
	tests := []struct {
		name   string
		schema *Schema
		p      Problem
		want   []string
	}{
		{
			"missing_lock: holders and the lock they lack", singleSchema(),
			Problem{Kind: MissingLock, Constraint: "username", Value: "bob", Accounts: []string{"ACCT#b2"}, constraint: 1},
			[]string{"accounts {PK=ACCT#b2,SK=PROFILE}", "accounts {PK=UNIQ#HANDLE#bob,SK=LOCK}"},
		},
		{
			"orphan_lock with owner: the lock and its owner", singleSchema(),
			Problem{Kind: OrphanLock, Constraint: "email", Value: "old@x.io", Owner: "ACCT#b2", Accounts: []string{},
				Lock: map[string]string{"PK": "UNIQ#EMAIL#old@x.io", "SK": "LOCK"}},
			[]string{"accounts {PK=ACCT#b2,SK=PROFILE}", "accounts {PK=UNIQ#EMAIL#old@x.io,SK=LOCK}"},
		},
		{
			"orphan_lock without owner: the lock", singleSchema(),
			Problem{Kind: OrphanLock, Constraint: "username", Value: "ghost", Accounts: []string{}, constraint: 1,
				Lock: map[string]string{"PK": "UNIQ#HANDLE#ghost", "SK": "LOCK"}},
			[]string{"accounts {PK=UNIQ#HANDLE#ghost,SK=LOCK}"},
		},
		{
			"foreign_lock: holders, lock and owner", singleSchema(),
			Problem{Kind: ForeignLock, Constraint: "email", Value: "a@x.io", Owner: "ACCT#z", Accounts: []string{"ACCT#a", "ACCT#b"},
				Lock: map[string]string{"PK": "UNIQ#EMAIL#a@x.io", "SK": "LOCK"}},
			[]string{"accounts {PK=ACCT#a,SK=PROFILE}", "accounts {PK=ACCT#b,SK=PROFILE}", "accounts {PK=ACCT#z,SK=PROFILE}", "accounts {PK=UNIQ#EMAIL#a@x.io,SK=LOCK}"},
		},
		{
			"duplicate_value owned by a holder: holders and lock, owner once", singleSchema(),
			Problem{Kind: DuplicateValue, Constraint: "email", Value: "a@x.io", Owner: "ACCT#b", Accounts: []string{"ACCT#a", "ACCT#b"},
				Lock: map[string]string{"PK": "UNIQ#EMAIL#a@x.io", "SK": "LOCK"}},
			[]string{"accounts {PK=ACCT#a,SK=PROFILE}", "accounts {PK=ACCT#b,SK=PROFILE}", "accounts {PK=UNIQ#EMAIL#a@x.io,SK=LOCK}"},
		},
		{
			"invalid_value of an account: the account only", singleSchema(),
			Problem{Kind: InvalidValue, Constraint: "email", Value: `{"N":"42"}`, Accounts: []string{"ACCT#a"}},
			[]string{"accounts {PK=ACCT#a,SK=PROFILE}"},
		},
		{
			"invalid_value of a lock's owner: the lock only", singleSchema(),
			Problem{Kind: InvalidValue, Constraint: "email", Value: `{"N":"7"}`, Accounts: []string{},
				Lock: map[string]string{"PK": "UNIQ#EMAIL#a@x.io", "SK": "LOCK"}},
			[]string{"accounts {PK=UNIQ#EMAIL#a@x.io,SK=LOCK}"},
		},
		{
			"tables: missing_lock", tablesSchema(),
			Problem{Kind: MissingLock, Constraint: "registration_code", Value: "R1", Accounts: []string{"d1"}, constraint: 1},
			[]string{"devices {id=d1}", "unique_registration_codes {RegistrationCode=R1}"},
		},
		{
			"tables: orphan_lock with owner", tablesSchema(),
			Problem{Kind: OrphanLock, Constraint: "registration_code", Value: "R9", Owner: "d2", Accounts: []string{}, constraint: 1,
				Lock: map[string]string{"RegistrationCode": "R9"}, LockTable: "unique_registration_codes"},
			[]string{"devices {id=d2}", "unique_registration_codes {RegistrationCode=R9}"},
		},
		{
			"tables: invalid owner", tablesSchema(),
			Problem{Kind: InvalidValue, Constraint: "mac_address", Value: `{"N":"7"}`, Accounts: []string{},
				Lock: map[string]string{"MacAddress": "aa"}, LockTable: "unique_mac_addresses"},
			[]string{"unique_mac_addresses {MacAddress=aa}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range (Classifier{tt.schema}).Involved(tt.p) {
				got = append(got, keyString(r))
			}
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Involved:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNeedsRescan(t *testing.T) {
	tests := []struct {
		p    Problem
		want bool
	}{
		{Problem{Kind: OrphanLock}, true},
		{Problem{Kind: OrphanLock, Owner: "ACCT#a"}, false},
		{Problem{Kind: MissingLock}, false},
		{Problem{Kind: ForeignLock, Owner: "ACCT#z"}, false},
		{Problem{Kind: DuplicateValue}, false},
		{Problem{Kind: InvalidValue}, false},
	}
	for _, tt := range tests {
		if got := NeedsRescan(tt.p); got != tt.want {
			t.Errorf("NeedsRescan(%s, owner %q) = %v, want %v", tt.p.Kind, tt.p.Owner, got, tt.want)
		}
	}
}

// freshCensus is what confirmation reads from db, the table as it is now:
// the keys each candidate involves, and every account when a candidate
// needs a rescan.
func freshCensus(t *testing.T, s *Schema, candidates []Problem, db []row) *Census {
	t.Helper()
	read := map[int]bool{}
	for _, p := range candidates {
		for _, ref := range (Classifier{s}).Involved(p) {
			for i, r := range db {
				if r.table == ref.Table && hasKey(r.item, ref.Key) {
					read[i] = true
				}
			}
		}
		if NeedsRescan(p) {
			for i, r := range db {
				if (Classifier{s}).Classify(r.table, r.item).Kind == EntryAccount {
					read[i] = true
				}
			}
		}
	}
	fresh := NewCensus(s, 0)
	for i, r := range db {
		if read[i] {
			fresh.Add(r.table, r.item)
		}
	}
	return fresh
}

func hasKey(it Item, key map[string]string) bool {
	for k, v := range key {
		if a, ok := it[k]; !ok || a.Kind != KindS || a.S != v {
			return false
		}
	}
	return len(key) > 0
}

func TestConfirm(t *testing.T) {
	tests := []struct {
		name          string
		schema        *Schema
		scanned, now  []row // the table as the scan saw it, and as it is now
		want          []string
		wantCandidate int // how many candidates the scan found
	}{
		{
			name:          "no candidates",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "username", "ada"), lock("UNIQ#HANDLE#ada", "ACCT#a")},
			now:           []row{acct("ACCT#a", "username", "ada")},
			wantCandidate: 0,
		},
		{
			name:          "missing_lock still missing is confirmed",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#b2", "username", "bob")},
			now:           []row{acct("ACCT#b2", "username", "bob")},
			wantCandidate: 1,
			want:          []string{`{"kind":"missing_lock","constraint":"username","value":"bob","accounts":["ACCT#b2"]}`},
		},
		{
			name:          "missing_lock whose lock now exists is dropped",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#b2", "username", "bob")},
			now:           []row{acct("ACCT#b2", "username", "bob"), lock("UNIQ#HANDLE#bob", "ACCT#b2")},
			wantCandidate: 1,
		},
		{
			name:          "missing_lock takes the fresh holders",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "username", "bob"), acct("ACCT#b", "username", "bob")},
			now:           []row{acct("ACCT#a", "username", "bob"), acct("ACCT#b", "username", "rob")},
			wantCandidate: 2,
			want:          []string{`{"kind":"missing_lock","constraint":"username","value":"bob","accounts":["ACCT#a"]}`},
		},
		{
			name:          "orphan_lock with owner still orphaned is confirmed",
			schema:        singleSchema(),
			scanned:       []row{lock("UNIQ#EMAIL#old@x.io", "ACCT#b2"), acct("ACCT#b2", "email", "new@x.io"), lock("UNIQ#EMAIL#new@x.io", "ACCT#b2")},
			now:           []row{lock("UNIQ#EMAIL#old@x.io", "ACCT#b2"), acct("ACCT#b2", "email", "new@x.io"), lock("UNIQ#EMAIL#new@x.io", "ACCT#b2")},
			wantCandidate: 1,
			want:          []string{`{"kind":"orphan_lock","constraint":"email","value":"old@x.io","lock":{"PK":"UNIQ#EMAIL#old@x.io","SK":"LOCK"},"owner":"ACCT#b2","accounts":[]}`},
		},
		{
			// A rename caught mid-way: the scan saw the new lock before the
			// account changed.
			name:          "orphan_lock whose owner now holds the value is dropped",
			schema:        singleSchema(),
			scanned:       []row{lock("UNIQ#EMAIL#new@x.io", "ACCT#b2"), acct("ACCT#b2", "email", "old@x.io"), lock("UNIQ#EMAIL#old@x.io", "ACCT#b2")},
			now:           []row{lock("UNIQ#EMAIL#new@x.io", "ACCT#b2"), acct("ACCT#b2", "email", "new@x.io")},
			wantCandidate: 1,
		},
		{
			name:          "orphan_lock that is gone is dropped",
			schema:        singleSchema(),
			scanned:       []row{lock("UNIQ#EMAIL#old@x.io", "ACCT#b2")},
			now:           []row{acct("ACCT#b2", "email", "new@x.io")},
			wantCandidate: 1,
		},
		{
			name:          "ownerless orphan_lock confirmed by a rescan",
			schema:        singleSchema(),
			scanned:       []row{lock("UNIQ#HANDLE#ghost")},
			now:           []row{lock("UNIQ#HANDLE#ghost"), acct("ACCT#a", "username", "ada")},
			wantCandidate: 1,
			want:          []string{`{"kind":"orphan_lock","constraint":"username","value":"ghost","lock":{"PK":"UNIQ#HANDLE#ghost","SK":"LOCK"},"accounts":[]}`},
		},
		{
			name:          "ownerless orphan_lock dropped when a rescan finds a holder",
			schema:        singleSchema(),
			scanned:       []row{lock("UNIQ#HANDLE#ghost")},
			now:           []row{lock("UNIQ#HANDLE#ghost"), acct("ACCT#g", "username", "ghost")},
			wantCandidate: 1,
		},
		{
			name:          "non-normalized orphan and its missing lock are confirmed",
			schema:        singleSchema(normalizeFirst(NormalizeLower)),
			scanned:       []row{acct("ACCT#a", "email", "Ada@x.io"), lock("UNIQ#EMAIL#Ada@x.io", "ACCT#a")},
			now:           []row{acct("ACCT#a", "email", "Ada@x.io"), lock("UNIQ#EMAIL#Ada@x.io", "ACCT#a")},
			wantCandidate: 2,
			want: []string{
				`{"kind":"orphan_lock","constraint":"email","value":"Ada@x.io","lock":{"PK":"UNIQ#EMAIL#Ada@x.io","SK":"LOCK"},"owner":"ACCT#a","accounts":[]}`,
				`{"kind":"missing_lock","constraint":"email","value":"ada@x.io","accounts":["ACCT#a"]}`,
			},
		},
		{
			name:          "foreign_lock still foreign is confirmed",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#z")},
			now:           []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#z"), acct("ACCT#z", "email", "z@x.io")},
			wantCandidate: 1,
			want:          []string{`{"kind":"foreign_lock","constraint":"email","value":"a@x.io","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"owner":"ACCT#z","accounts":["ACCT#a"]}`},
		},
		{
			name:          "foreign_lock whose owner now holds the value is dropped",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#z")},
			now:           []row{acct("ACCT#a", "email", "b@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#z"), acct("ACCT#z", "email", "a@x.io")},
			wantCandidate: 1,
		},
		{
			name:          "foreign_lock repaired (owner set to the holder) is dropped",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#z")},
			now:           []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", "ACCT#a")},
			wantCandidate: 1,
		},
		{
			name:          "duplicate_value takes the fresh holders",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "username", "ada"), acct("ACCT#b", "username", "ada"), acct("ACCT#c", "username", "ada"), lock("UNIQ#HANDLE#ada", "ACCT#a")},
			now:           []row{acct("ACCT#a", "username", "ada"), acct("ACCT#b", "username", "ada"), acct("ACCT#c", "username", "cat"), lock("UNIQ#HANDLE#ada", "ACCT#a")},
			wantCandidate: 1,
			want:          []string{`{"kind":"duplicate_value","constraint":"username","value":"ada","lock":{"PK":"UNIQ#HANDLE#ada","SK":"LOCK"},"owner":"ACCT#a","accounts":["ACCT#a","ACCT#b"]}`},
		},
		{
			name:          "duplicate_value with one holder left is dropped",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "username", "ada"), acct("ACCT#b", "username", "ada"), lock("UNIQ#HANDLE#ada", "ACCT#a")},
			now:           []row{acct("ACCT#a", "username", "ada"), lock("UNIQ#HANDLE#ada", "ACCT#a")},
			wantCandidate: 1,
		},
		{
			// Equal values: confirmation must match the account too.
			name:          "invalid_value still invalid is confirmed, a fixed one dropped",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "email", N("42")), acct("ACCT#b", "email", N("42"))},
			now:           []row{acct("ACCT#a", "email", N("42")), acct("ACCT#b", "email", Null())},
			wantCandidate: 2,
			want:          []string{`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"42\"}","accounts":["ACCT#a"]}`},
		},
		{
			name:          "invalid owner still invalid is confirmed",
			schema:        singleSchema(),
			scanned:       []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", N("7"))},
			now:           []row{acct("ACCT#a", "email", "a@x.io"), lock("UNIQ#EMAIL#a@x.io", N("7"))},
			wantCandidate: 1,
			want:          []string{`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"7\"}","lock":{"PK":"UNIQ#EMAIL#a@x.io","SK":"LOCK"},"accounts":[]}`},
		},
		{
			name:          "tables: orphan confirmed, missing lock written since dropped",
			schema:        tablesSchema(),
			scanned:       []row{device("d1", "registration_code", "R1"), codeLock("R9", "d2"), device("d2")},
			now:           []row{device("d1", "registration_code", "R1"), codeLock("R1", "d1"), codeLock("R9", "d2"), device("d2")},
			wantCandidate: 2,
			want:          []string{`{"kind":"orphan_lock","constraint":"registration_code","value":"R9","lock":{"RegistrationCode":"R9"},"lock_table":"unique_registration_codes","owner":"d2","accounts":[]}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			candidates := censusOf(tt.schema, tt.scanned).Problems()
			if len(candidates) != tt.wantCandidate {
				t.Fatalf("scan found %d candidates, want %d: %s", len(candidates), tt.wantCandidate, problemsJSON(t, candidates))
			}
			fresh := freshCensus(t, tt.schema, candidates, tt.now)
			checkProblems(t, tt.schema, Confirm(candidates, fresh), tt.want)
		})
	}
}

// TestConfirmTakesAReservationThatLapsedSince: a lock reserved for its
// holder (expiring_lock) when the scan read it, lapsed by the time of the
// consistent read, is still the same lock's problem: confirmed as
// expired_lock, as check reports it then, not dropped as fixed (the TUI's
// f on the row said "already fixed, or fixed by someone else"; issue 28).
func TestConfirmTakesAReservationThatLapsedSince(t *testing.T) {
	s := withTTL(DefaultSchema(LayoutSingle))
	expires := N(strconv.FormatInt(testNow+60, 10))
	l := lock("UNIQ#EMAIL#v@x", "ACCT#a")
	l.item["ttl"] = expires
	rows := []row{acct("ACCT#a", "email", "v@x"), l}
	candidates := censusOf(&s, rows).Problems()
	if len(candidates) != 1 || candidates[0].Kind != ExpiringLock {
		t.Fatalf("scanned: %s; want one expiring_lock", problemsJSON(t, candidates))
	}
	fresh := NewCensus(&s, testNow+120) // the reservation lapsed a minute ago
	for _, r := range rows {
		fresh.Add(r.table, r.item)
	}
	got := Confirm(candidates, fresh)
	if len(got) != 1 || got[0].Kind != ExpiredLock || got[0].Value != "v@x" {
		t.Errorf("confirmed %s; want the lock's expired_lock", problemsJSON(t, got))
	}
}
