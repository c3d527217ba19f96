package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
)

// writeConfig writes a config file in a fresh directory and returns its
// path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// twoTargets is a config of two targets; line numbers matter below.
const twoTargets = `default: local
targets:
  local:
    endpoint-url: http://localhost:8000
    table: accounts
  prod:
    profile: prod
    region: eu-west-1
    layout: tables
    unique: [mac_address=@unique_mac_addresses/MacAddress]
    read-only: true
keys: { quit: [q, ctrl+c] }
theme: dark
hide-columns: { accounts: [username] }
`

func TestConfigShow(t *testing.T) {
	path := writeConfig(t, twoTargets)
	t.Setenv("LOCKTABLE_REGION", "us-west-2")
	t.Setenv("LOCKTABLE_SEGMENTS", "8")

	r := run(t, "config", "show", "--config", path, "--account-sk", "USER")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		`  endpoint-url    http://localhost:8000  ` + path + `:4 (target local)`,
		`  table           accounts  ` + path + `:5 (target local)`,
		`  region          us-west-2  env LOCKTABLE_REGION`,
		`  segments        8  env LOCKTABLE_SEGMENTS`,
		`  account-sk      USER  flag`,
		`  read-only       false  default`,
		`  target          local  ` + path + `:1`,
		`  config          ` + path + `  flag`,
		`  unique          [email=UNIQ#EMAIL#, username=UNIQ#HANDLE#]  default`,
		`  theme           dark  ` + path + `:13`,
		`  keys.quit       [q, ctrl+c]  ` + path + `:12`,
		`  hide-columns.accounts  [username]  ` + path + `:14`,
	} {
		re := regexp.MustCompile(`(?m)^\s+` + strings.Join(strings.Fields(regexp.QuoteMeta(want)), `\s+`) + `$`)
		if !re.MatchString(r.stdout) {
			t.Errorf("no line like %q in:\n%s", want, r.stdout)
		}
	}
	for _, group := range []string{"connection", "schema", "output", "safety", "scan", "terminal UI"} {
		if !strings.Contains(r.stdout, "\n"+group+"\n") && !strings.HasPrefix(r.stdout, group+"\n") {
			t.Errorf("no group %q", group)
		}
	}

	// The other target, in JSON: layout tables brings its own defaults.
	j := run(t, "config", "show", "--config", path, "--target", "prod", "--json")
	if j.code != 0 {
		t.Fatalf("--json: exit %d, %s", j.code, j.stderr)
	}
	var shown struct {
		ConfigFound bool `json:"config_found"`
		Settings    []struct {
			Name   string `json:"name"`
			Value  any    `json:"value"`
			Source string `json:"source"`
			Env    string `json:"env"`
			File   string `json:"file"`
			Line   int    `json:"line"`
			Target string `json:"target"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &shown); err != nil || !shown.ConfigFound {
		t.Fatalf("not a config show document (%v): %s", err, j.stdout)
	}
	got := map[string]string{}
	for _, s := range shown.Settings {
		got[s.Name] = fmt.Sprintf("%v %s %s %s:%d %s", s.Value, s.Source, s.Env, s.File, s.Line, s.Target)
	}
	for name, want := range map[string]string{
		"profile":               "prod file  " + path + ":7 prod",
		"region":                "us-west-2 env LOCKTABLE_REGION :0 ",
		"layout":                "tables file  " + path + ":9 prod",
		"unique":                "[mac_address=@unique_mac_addresses/MacAddress] file  " + path + ":10 prod",
		"read-only":             "true file  " + path + ":11 prod",
		"table":                 "devices default  :0 ",
		"pk":                    "id default  :0 ",
		"target":                "prod flag  :0 ",
		"theme":                 "dark file  " + path + ":13 ",
		"keys.quit":             "[q ctrl+c] file  " + path + ":12 ",
		"hide-columns.accounts": "[username] file  " + path + ":14 ",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
}

// TestConfigShowWithoutAFile: a missing default file is no error, and
// every value is the default.
func TestConfigShowWithoutAFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := run(t, "config", "show")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^  config\s+\S+/locktable/config\.yaml \(no such file\)\s+default$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^  target\s+""\s+default$`).MatchString(r.stdout) {
		t.Errorf("config show:\n%s", r.stdout)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	typo := writeConfig(t, "default: prod\ntargets:\n  prod:\n    region: eu-west-1\n\n\n    tabel: accounts\n")
	good := writeConfig(t, twoTargets)
	bad := writeConfig(t, "targets:\n  prod:\n    read-only: yes\n")
	layout := writeConfig(t, "default: p\ntargets:\n  p:\n    layout: tabels\n")
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown key", []string{"check", "--config", typo}, []string{typo + `:7: target "prod": unknown key "tabel" (did you mean "table"?)`}},
		{"wrong type", []string{"check", "--config", bad, "--target", "prod"}, []string{bad + `:3: target "prod": read-only: want true or false, not "yes"`}},
		{"unknown target", []string{"check", "--config", good, "--target", "nope"}, []string{"--target nope: no such target in " + good + " (targets: local, prod)"}},
		{"missing --config", []string{"check", "--config", missing}, []string{missing + ": cannot read the config file"}},
		{"invalid value from a target", []string{"check", "--config", layout}, []string{`--layout: "tabels" is not single or tables (from ` + layout + `:4, target p)`}},
		{"read-only from a target", []string{"delete", "ACCT#x", "--yes", "--config", good, "--target", "prod", "--audit-log", filepath.Join(t.TempDir(), "a.log")},
			[]string{"--read-only is set (from " + good + ":11, target prod)"}},
		{"target use of an unknown target", []string{"target", "use", "nope", "--config", good}, []string{`no target "nope" (targets: local, prod)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wantError(t, run(t, c.args...), cli.ExitError, c.want...)
		})
	}
	// A broken config does not stop help or completion scripts.
	for _, args := range [][]string{{"--config", typo, "--help"}, {"--config", typo, "completion", "bash"}, {"--config", typo, "help", "check"}} {
		if r := run(t, args...); r.code != 0 || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

func TestTargetListAndUse(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, "# team targets\n"+twoTargets)
	r := run(t, "target", "list", "--config", path)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := regexp.MustCompile(`^\* local\s+endpoint-url=http://localhost:8000 table=accounts\n  prod\s+profile=prod region=eu-west-1 layout=tables unique=\[mac_address=@unique_mac_addresses/MacAddress\] read-only=true\n$`)
	if !want.MatchString(r.stdout) {
		t.Errorf("target list:\n%s", r.stdout)
	}

	r = run(t, "target", "use", "prod", "--config", path)
	if r.code != 0 || r.stdout != "default target: prod ("+path+")\n" {
		t.Fatalf("target use: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(path)
	if want := "# team targets\n" + strings.Replace(twoTargets, "default: local", "default: prod", 1); string(data) != want {
		t.Errorf("file after target use:\n%s\nwant only the default changed:\n%s", data, want)
	}
	if r := run(t, "target", "list", "--config", path); !strings.Contains(r.stdout, "\n* prod ") {
		t.Errorf("the default did not move:\n%s", r.stdout)
	}

	// No file: nothing to list, said on stderr; nothing to choose from.
	none := filepath.Join(t.TempDir(), "none.yaml")
	if r := run(t, "target", "list", "--config", none); r.code != 2 {
		t.Errorf("target list with a missing --config: exit %d", r.code)
	}
}

// TestCheckTarget runs check against dynoxide with the endpoint and the
// table coming from the config file: by --target, and by the default
// that `target use` wrote into $XDG_CONFIG_HOME/locktable/config.yaml.
func TestCheckTarget(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	seed(t, client, []string{table}, "--endpoint-url", ep, "--table", table, "--accounts", "5", "--anomalies")

	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	path := filepath.Join(home, "locktable", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("default: away\ntargets:\n  local:\n    endpoint-url: %s\n    table: %s\n    segments: 2\n  away:\n    endpoint-url: %s\n", ep, table, closedPort(t))
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(t, "check", "--target", "local", "--json")
	if r.code != cli.ExitProblems || r.stderr != "" {
		t.Fatalf("check --target local: exit %d, stderr %q", r.code, r.stderr)
	}
	if rep := decodeReport(t, r.stdout); rep.Table != table || len(rep.Problems) == 0 {
		t.Fatalf("report on %q with %d problems, want %q with the seeded ones", rep.Table, len(rep.Problems), table)
	}

	// The default target is unreachable; once `target use local` has
	// made local the default, a bare check reaches the table.
	wantError(t, run(t, "check"), cli.ExitError, "cannot reach")
	if r := run(t, "target", "use", "local"); r.code != 0 {
		t.Fatalf("target use local: exit %d, %s", r.code, r.stderr)
	}
	if r := run(t, "check"); r.code != cli.ExitProblems || !strings.Contains(r.stdout, "table "+table+":") {
		t.Fatalf("check after target use: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The environment beats the target, the command line beats both.
	t.Setenv("LOCKTABLE_TABLE", dynamotest.Name(t, "nosuch"))
	wantError(t, run(t, "check"), cli.ExitError, "not found")
	if r := run(t, "check", "--table", table); r.code != cli.ExitProblems {
		t.Fatalf("check --table over LOCKTABLE_TABLE: exit %d, %s", r.code, r.stderr)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, strings.Replace(twoTargets, "keys:", "  extra:\n    table: other\nkeys:", 1))
	complete := func(args ...string) []string {
		t.Helper()
		r := run(t, append([]string{"__complete"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d, %s", args, r.code, r.stderr)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if !strings.HasPrefix(l, ":") {
				name, _, _ := strings.Cut(l, "\t")
				out = append(out, name)
			}
		}
		return out
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--layout", ""}, "single tables"},
		{[]string{"repair", "--kind", ""}, "missing_lock orphan_lock foreign_lock expired_lock expiring_lock duplicate_value invalid_value"},
		{[]string{"--config", path, "--target", ""}, "local prod extra"},
		{[]string{"--config", path, "target", "use", ""}, "local prod extra"},
		{[]string{"--config", path, "--table", ""}, "accounts other"},
		{[]string{"--config", path, "repair", "--constraint", ""}, "email username"},
		{[]string{"--config", path, "--target", "prod", "repair", "--constraint", ""}, "mac_address"},
		{[]string{"--unique", "sku=S#", "--normalize", ""}, "sku=none sku=lower sku=casefold"},
	}
	for _, c := range cases {
		if got := strings.Join(complete(c.args...), " "); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
}
