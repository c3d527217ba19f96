package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// electroDB is ElectroDB 3.9.3 with the unique constraint its
// documentation builds (testdata/libs/electrodb.mjs).
var electroDB = library{name: "electrodb", script: "electrodb.mjs", dirEnv: "ELECTRODB_NODE_DIR",
	pkg: "electrodb/package.json", preset: "electrodb:agent"}

// agentKey is the whole key of an agent, as locktable names it: its
// partition and sort key as ElectroDB composes them, joined by |.
func agentKey(designation, id string) string {
	return "$mi6#designation_" + designation + "|$agent_1#id_" + id
}

// constraintJSON is the key constraint.get takes for an email.
func constraintJSON(email string) string {
	b, _ := json.Marshal(map[string]string{"value": email, "name": "email", "entity": "agent"})
	return string(b)
}

// agentJSON is an agent for the documented signup.
func agentJSON(designation, id, email string) string {
	b, _ := json.Marshal(map[string]string{"designation": designation, "id": id, "email": email})
	return string(b)
}

// TestE2EElectroDBPreset plants a table through ElectroDB itself, with
// its documented unique constraint, and checks that check --preset
// electrodb:agent finds exactly what code that forgets the constraint
// leaves (a delete, a create outside the transaction, a taken email, a
// changed email), the mixed-case agent healthy; that repair leaves only
// the duplicate, and ElectroDB reads what it wrote (constraint.get finds
// each repaired constraint, its signup takes the released values and is
// refused on the repaired ones); and that locktable's signup and rename
// are refused where ElectroDB's own create would be.
func TestE2EElectroDBPreset(t *testing.T) {
	lib := electroDB
	table, env, args := lib.plant(t, dynamotest.Endpoint(t), "plant")
	accounts, got := presetProblems(t, args)
	want := []string{
		"duplicate_value email agent1@mi6.uk [" + agentKey("00", "a1") + " " + agentKey("00", "a5") + "]", // a second agent with a taken email
		"missing_lock email agent4@mi6.uk [" + agentKey("00", "a4") + "]",                                 // created outside the transaction
		"missing_lock email quartermaster@mi6.uk [" + agentKey("q", "q") + "]",                            // the changed email's new value
		"orphan_lock email agent2@mi6.uk []",                                                              // a delete that left the constraint
		"orphan_lock email q@mi6.uk []",                                                                   // the changed email's old value
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if accounts != 6 { // a1 a3 a4 a5 bond q: not a2 (deleted)
		t.Errorf("accounts %d, want 6", accounts)
	}

	// check --export finds the same in an export: with --confirm, which
	// reads the preset's details from the live table, and with them
	// given (the keys, and the constraint entity's service, which keys
	// the documented constraint), reading nothing from DynamoDB.
	client, _ := dynamotest.Client(t)
	dir := exportTable(t, client, table)
	given := []string{"--table", table, "--preset", "electrodb:agent", "--pk", "pk", "--sk", "sk", "--unique", "email",
		"--constraint-entity", "service=mi6", "--export", dir, "--endpoint-url", "http://127.0.0.1:1"}
	exportsAgree(t, args, map[string][]string{"check --export --confirm": append(slices.Clone(args), "--export", dir, "--confirm"), "check --export": given})

	// init recognises the table (__edb_e__, __edb_v__) and proposes the
	// preset; the check with what it proposes is the same.
	r := locktable(t, nil, "init", args[0], args[1], args[2], args[3])
	if r.code != 0 || !strings.Contains(r.stdout, "--preset electrodb:agent") || !strings.Contains(r.stdout, "--unique email") {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	proposed := []string{args[0], args[1], args[2], args[3], "--preset", "electrodb:agent", "--account-sk", "=ID", "--unique", "email", "--normalize", "email=lower"}
	if _, got := presetProblems(t, proposed); !slices.Equal(got, want) {
		t.Errorf("check with init's proposal found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// Before sending, a signup looks for other holders: agent a4 holds
	// agent4@mi6.uk (as Agent4@mi6.uk) while its constraint is missing,
	// so a signup of AGENT4@mi6.uk is refused as taken, naming a4.
	r = locktable(t, nil, append([]string{"signup", "--yes", "--id", agentKey("9", "h1"), "--set", "designation=9", "--set", "id=h1",
		"--set", "email=AGENT4@mi6.uk"}, args...)...)
	if r.code != 3 || !strings.Contains(r.stdout+r.stderr, agentKey("00", "a4")) {
		t.Errorf("signup with a value an agent holds without its constraint: exit %d, want 3 naming a4\n%s%s", r.code, r.stdout, r.stderr)
	}

	dup := repairLeavesTheDuplicates(t, args, want)

	// ElectroDB reads each constraint the repair wrote, with the value
	// as the agent holds it.
	for v, holds := range map[string]string{"agent4@mi6.uk": "Agent4@mi6.uk", "Agent4@mi6.uk": "Agent4@mi6.uk", "quartermaster@mi6.uk": "quartermaster@mi6.uk"} {
		if _, out := lib.node(t, env, "get", constraintJSON(v)); !strings.Contains(out, `"value":"`+holds+`"`) || !strings.Contains(out, `"entity":"agent"`) {
			t.Errorf("constraint.get %s after the repair: %s", v, out)
		}
	}
	// Its signup is refused on the repaired values, in any case, and
	// takes the released ones.
	for i, v := range []string{"AGENT4@mi6.uk", "quartermaster@mi6.uk"} {
		if code, out := lib.node(t, env, "create", agentJSON("9", "r"+string(rune('0'+i)), v)); code != 3 {
			t.Errorf("ElectroDB signup with %s after the repair put its constraint: exit %d (%s), want refused", v, code, out)
		}
	}
	for i, v := range []string{"agent2@mi6.uk", "Q@mi6.uk"} {
		if code, out := lib.node(t, env, "create", agentJSON("9", "f"+string(rune('0'+i)), v)); code != 0 {
			t.Errorf("ElectroDB signup with %s, released by the repair: exit %d (%s), want created", v, code, out)
		}
	}

	// locktable's signup and rename are refused where ElectroDB's create
	// would be: the value as ElectroDB composes it is taken.
	r = locktable(t, nil, append([]string{"signup", "--yes", "--id", agentKey("9", "s1"), "--set", "designation=9", "--set", "id=s1",
		"--set", "email=BOND@mi6.uk"}, args...)...)
	if r.code != 3 {
		t.Errorf("signup with BOND@mi6.uk (Bond@MI6.uk's constraint): exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = locktable(t, nil, append([]string{"rename", agentKey("00", "a3"), "--set", "email=Agent1@MI6.uk", "--yes"}, args...)...)
	if r.code != 3 {
		t.Errorf("rename to Agent1@MI6.uk (agent1's constraint): exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A signup through the preset is ElectroDB's agent, and its
	// constraint refuses ElectroDB's signup.
	r = locktable(t, nil, append([]string{"signup", "--yes", "--id", agentKey("9", "s2"), "--set", "designation=9", "--set", "id=s2",
		"--set", "email=Tanner@MI6.uk"}, args...)...)
	if r.code != 0 {
		t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, out := lib.node(t, env, "agent", `{"designation":"9","id":"s2"}`); !strings.Contains(out, `"email":"Tanner@MI6.uk"`) {
		t.Errorf("agent.get after locktable's signup: %s", out)
	}
	if _, out := lib.node(t, env, "get", constraintJSON("Tanner@MI6.uk")); !strings.Contains(out, `"value":"Tanner@MI6.uk"`) {
		t.Errorf("constraint.get after locktable's signup: %s", out)
	}
	if code, _ := lib.node(t, env, "create", agentJSON("9", "s3", "tanner@mi6.uk")); code != 3 {
		t.Errorf("ElectroDB signup with the email locktable's signup took: exit %d, want refused", code)
	}
	// A rename through the preset moves the constraint: ElectroDB's
	// signup takes the old value and is refused on the new.
	r = locktable(t, nil, append([]string{"rename", agentKey("9", "s2"), "--set", "email=bill@mi6.uk", "--yes"}, args...)...)
	if r.code != 0 {
		t.Fatalf("rename: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if code, _ := lib.node(t, env, "create", agentJSON("9", "s4", "BILL@mi6.uk")); code != 3 {
		t.Errorf("ElectroDB signup with the email locktable's rename took: exit %d, want refused", code)
	}
	if code, _ := lib.node(t, env, "create", agentJSON("9", "s5", "tanner@mi6.uk")); code != 0 {
		t.Errorf("ElectroDB signup with the email locktable's rename released: exit %d, want created", code)
	}
	// A delete through the preset releases the constraint ElectroDB
	// wrote: its signup takes the value again.
	r = locktable(t, nil, append([]string{"delete", agentKey("9", "s5"), "--yes"}, args...)...)
	if r.code != 0 {
		t.Fatalf("delete: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if code, out := lib.node(t, env, "create", agentJSON("9", "s6", "Tanner@mi6.uk")); code != 0 {
		t.Errorf("ElectroDB signup with the email locktable's delete released: exit %d (%s), want created", code, out)
	}
	if _, got = presetProblems(t, args); !slices.Equal(got, dup) {
		t.Errorf("at the end, check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(dup, "\n  "))
	}
}

// TestE2EElectroDBNoConstraintYet checks a table whose agents have no
// constraint item yet: --unique email keys the constraint as the
// documented entity in the agents' service, lower-cased, and the
// constraint repair puts is the one ElectroDB reads and its signup is
// refused on. A constraint entity given otherwise (--constraint-entity)
// keys it otherwise.
func TestE2EElectroDBNoConstraintYet(t *testing.T) {
	lib := electroDB
	_, env, args := lib.plant(t, dynamotest.Endpoint(t), "bare")
	args = append(args, "--unique", "email")

	r := locktable(t, nil, append([]string{"repair", "--dry-run", "--constraint-entity", "entity=unique,version=2"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"pk":{"S":"$mi6#value_agent1@mi6.uk"},"sk":{"S":"$unique_2#name_email#entity_agent"}`) {
		t.Errorf("repair --dry-run with --constraint-entity: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, got := presetProblems(t, args); !slices.Equal(got, []string{"missing_lock email agent1@mi6.uk [" + agentKey("00", "a1") + "]"}) {
		t.Fatalf("check found %v", got)
	}
	repairLeavesTheDuplicates(t, args, nil)
	if _, out := lib.node(t, env, "get", constraintJSON("Agent1@mi6.uk")); !strings.Contains(out, `"value":"Agent1@mi6.uk"`) {
		t.Errorf("constraint.get after the repair: %s", out)
	}
	if code, _ := lib.node(t, env, "create", agentJSON("9", "b", "agent1@MI6.uk")); code != 3 {
		t.Errorf("ElectroDB signup with the repaired email: exit %d, want refused", code)
	}
}

// TestTUIElectroDBPreset opens a table ElectroDB wrote in the TUI with
// --preset electrodb:agent: each agent is named by its whole key (PK|SK),
// its email's constraint (keyed lower-cased) on the row beneath it, and
// the agent created outside the transaction has its constraint shown
// missing.
func TestTUIElectroDBPreset(t *testing.T) {
	_, _, args := electroDB.plant(t, dynamotest.Endpoint(t), "plant")
	tm := startTUISized(t, 80, 24, args...)
	tm.start()
	missing := regexp.MustCompile(`└ \$mi6#value_agent4@mi6\.uk\s+expected, not found\s+missing\s*$`)
	screen := tm.waitFor("a4's constraint missing", func(s string) bool { return hasLine(s, missing) })

	lines := strings.Split(screen, "\n")
	for _, a := range [][3]string{{"00", "a1", "agent1@mi6.uk"}, {"00", "a3", "agent3@mi6.uk"}, {"00", "a4", "Agent4@mi6.uk"},
		{"00", "a5", "agent1@mi6.uk"}, {"007", "bond", "Bond@MI6.uk"}, {"q", "q", "quartermaster@mi6.uk"}} {
		row := regexp.MustCompile(`^(?:▸ |  )` + regexp.QuoteMeta(agentKey(a[0], a[1])) + `\s+email=` + regexp.QuoteMeta(a[2]) + `(?:\s|$)`)
		i := slices.IndexFunc(lines, row.MatchString)
		if i < 0 || i+1 >= len(lines) {
			t.Errorf("no row for agent %s with email %s:\n%s", agentKey(a[0], a[1]), a[2], screen)
			continue
		}
		if !strings.Contains(lines[i+1], "└ $mi6#value_"+strings.ToLower(a[2])+" ") {
			t.Errorf("agent %s is not followed by its constraint:\n%s\n%s", a[1], lines[i], lines[i+1])
		}
	}
	// A healthy constraint names no owner by design: it says what it is.
	healthy := regexp.MustCompile(`└ \$mi6#value_agent3@mi6\.uk\s+email constraint\s+ok\s*$`)
	if !hasLine(screen, healthy) || strings.Contains(screen, "no owner") {
		t.Errorf("a3's constraint does not read \"email constraint ... ok\", or a row says \"no owner\":\n%s", screen)
	}
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}

// TestE2EElectroDBSeed: what seed --preset electrodb:agent writes,
// ElectroDB 3.9.3 reads as its own: constraint.get finds a seeded
// constraint (a mixed-case email's, by its value in any case), agent.get
// a seeded agent, and its documented signup is refused on a seeded email.
func TestE2EElectroDBSeed(t *testing.T) {
	lib := electroDB
	ep := dynamotest.Endpoint(t)
	dir := libDir(t, lib)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, lib.name)
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	env := map[string]string{"LOCKTABLE_TEST_ENDPOINT": ep, "TABLE": table, lib.dirEnv: dir, "NODE_NO_WARNINGS": "1"}
	r := locktable(t, nil, "seed", "--endpoint-url", ep, "--table", table, "--preset", lib.preset, "--unique", "email",
		"--constraint-entity", "service=mi6", "--accounts", "5", "--anomalies", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	if r.code != 0 {
		t.Fatalf("seed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for v, holds := range map[string]string{"Grace.2@example.org": "Grace.2@example.org", "grace.2@example.org": "Grace.2@example.org", "ada.0@example.org": "ada.0@example.org"} {
		if _, out := lib.node(t, env, "get", constraintJSON(v)); !strings.Contains(out, `"value":"`+holds+`"`) || !strings.Contains(out, `"entity":"agent"`) {
			t.Errorf("constraint.get %s after seed: %s", v, out)
		}
	}
	if _, out := lib.node(t, env, "agent", `{"designation":"02","id":"a3c6ef362"}`); !strings.Contains(out, `"email":"Grace.2@example.org"`) {
		t.Errorf("agent.get of seeded agent 2: %s", out)
	}
	if code, out := lib.node(t, env, "create", agentJSON("9", "x", "GRACE.2@example.org")); code != 3 {
		t.Errorf("ElectroDB signup with a seeded email: exit %d (%s), want refused", code, out)
	}
}

// TestTUIElectroDBDemo: the embedded demo's ElectroDB table at 80x24, as
// a new user opens it (go run . --demo --preset electrodb:agent): agents
// named PK|SK with their constraints beneath them, and in the Problems
// view a missing constraint's value whole, its agent's key cut at the
// heads of its halves (its designation and id kept).
func TestTUIElectroDBDemo(t *testing.T) {
	tm := startTUISized(t, 80, 24, "--demo", "--preset", "electrodb:agent")
	tm.start()
	tm.waitFor("an agent with its constraint", func(s string) bool {
		return hasLine(s, regexp.MustCompile(`^\s+└ \$mi6#value_\S+\s+email constraint\s+ok\s*$`))
	})
	tm.keys("3")
	missing := regexp.MustCompile(`^(?:▸ |  )\s*[a-z]+\.\d+@example\.org\s+(?:email\s+)?held by …\S*_\d\d\|…\S*_a[0-9a-f]{8}\s+missing\s*$`)
	tm.waitFor("a missing constraint, its value whole", func(s string) bool { return hasLine(s, missing) })
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}
