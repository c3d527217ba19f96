package ui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// exportTo runs :export (:export! when force) to path, and waits for the
// file to be written or refused.
func (d *driver) exportTo(path string, force bool) {
	d.t.Helper()
	name := "export "
	if force {
		name = "export! "
	}
	d.press(":")
	d.typeText(name + path)
	d.press("enter")
	d.settle()
}

// readCSV reads an exported CSV file: its header row, then its rows.
func readCSV(t *testing.T, path string) (head []string, rows [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("%s is not CSV with a header row (%v):\n%s", path, err, b)
	}
	return all[0], all[1:]
}

// readJSONLines reads an exported JSON file, one object a line.
func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%s: a line is not a JSON object (%v): %q", path, err, l)
		}
		out = append(out, o)
	}
	return out
}

// TestExportEachView (issue 39, 5): :export FILE writes the rows of the
// view shown, as CSV under a header row that names the columns, or as
// one JSON object a line, by the file's extension; the status line says
// how many rows went where.
func TestExportEachView(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, 120, 40)
	d.ready()
	for _, v := range []struct {
		key  string
		head []string
		row  []string // one row the export must hold
		rows int
	}{
		{"1", []string{"row", "account", "attribute", "value", "lock", "owner", "status", "expires_at"},
			[]string{"lock", "ACCT#c3", "email", "carol@x.io", "UNIQ#EMAIL#carol@x.io", "ACCT#z9", "foreign", ""}, 2 + 7*3},
		{"2", []string{"lock", "attribute", "value", "owner", "status", "expires_at"},
			[]string{"UNIQ#HANDLE#ghost", "username", "ghost", "", "orphan", ""}, 12},
		{"3", []string{"kind", "constraint", "value", "lock", "owner", "accounts", "expires_at"},
			[]string{"missing_lock", "username", "bob", "", "", `["ACCT#b2"]`, ""}, 6},
		{"4", []string{"pk", "sk", "item"},
			[]string{"CONFIG#site", "V1", `{"PK":{"S":"CONFIG#site"},"SK":{"S":"V1"},"motd":{"S":"hello"}}`}, 4},
	} {
		d.press(v.key)
		d.until("the view's rows", func(m *Model) bool {
			return !m.views.locks.Loading() && !m.views.others.Loading()
		})
		d.settle()
		path := filepath.Join(dir, "view"+v.key+".csv")
		d.exportTo(path, false)
		head, rows := readCSV(t, path)
		if !slices.Equal(head, v.head) {
			t.Errorf("view %s: header row %q, want %q", v.key, head, v.head)
		}
		if len(rows) != v.rows || !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, v.row) }) {
			t.Errorf("view %s: %d rows, want %d with %q:\n%q", v.key, len(rows), v.rows, v.row, rows)
		}
		if want := "exported " + strconv.Itoa(v.rows) + " rows to " + model.Quote(path); !strings.Contains(d.screen(), want) {
			t.Errorf("view %s: the status line does not say %q:\n%s", v.key, want, d.screen())
		}
		jpath := filepath.Join(dir, "view"+v.key+".json")
		d.exportTo(jpath, false)
		objs := readJSONLines(t, jpath)
		if len(objs) != v.rows {
			t.Errorf("view %s: %d JSON lines, want %d", v.key, len(objs), v.rows)
		}
		for _, o := range objs {
			if len(o) != len(v.head) {
				t.Errorf("view %s: a JSON line has keys %v, want %q", v.key, o, v.head)
				break
			}
		}
	}
}

// TestExportKeepsTheFilter: what the filter hides is not exported, in
// the accounts view (an account with its lock rows) and in the locks view.
func TestExportKeepsTheFilter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("/")
	d.typeText("bob")
	d.press("enter")
	d.exportTo(filepath.Join(dir, "bob.csv"), false)
	_, rows := readCSV(t, filepath.Join(dir, "bob.csv"))
	var got []string
	for _, r := range rows {
		got = append(got, r[0]+" "+r[1]+" "+r[2]+" "+r[6])
	}
	if want := []string{"account ACCT#b2  problem", "lock ACCT#b2 email ok", "lock ACCT#b2 username missing"}; !slices.Equal(got, want) {
		t.Errorf("the filter bob exported %q, want %q", got, want)
	}
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.press("/")
	d.typeText("#email#")
	d.press("enter")
	d.exportTo(filepath.Join(dir, "email.json"), false)
	objs := readJSONLines(t, filepath.Join(dir, "email.json"))
	if kept, _ := d.m.filterCount(); len(objs) != kept || kept == 0 {
		t.Errorf("%d locks exported, the filter keeps %d", len(objs), kept)
	}
	for _, o := range objs {
		if o["attribute"] != "email" {
			t.Errorf("the filter #email# exported %v", o)
		}
	}
}

// TestExportRefusesToOverwrite: a file that exists is not written over,
// and the status line says so and how to; :export! writes over it. The
// command line says :export and its !.
func TestExportRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kept.csv")
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press(":")
	d.typeText("exp")
	if want := ":export[!] FILE: write the rows shown"; !strings.Contains(d.screen(), want) {
		t.Errorf("the command line does not say %q:\n%s", want, d.screen())
	}
	d.press("esc")
	d.exportTo(path, false)
	if b, _ := os.ReadFile(path); string(b) != "mine\n" {
		t.Errorf(":export wrote over a file that exists: %q", b)
	}
	if want := "not exported: " + model.Quote(path) + " exists; :export! " + path + " writes over it"; !strings.Contains(fields(d.screen()), want) {
		t.Errorf("the refusal does not say %q:\n%s", want, d.screen())
	}
	d.exportTo(path, true)
	if head, rows := readCSV(t, path); head[0] != "row" || len(rows) == 0 {
		t.Errorf(":export! did not write over the file: %q %q", head, rows)
	}
	d.exportTo(filepath.Join(t.TempDir(), "rows.txt"), false)
	if want := "the file's extension says the format: .csv or .json"; !strings.Contains(fields(d.screen()), want) {
		t.Errorf("an export to .txt does not say %q:\n%s", want, d.screen())
	}
}

// TestExportIsExact: a value with a quote, a control character and a
// bidi override is written exactly: in CSV as it is, in JSON escaped as
// check --json escapes it (\u001b, \u202e), the same string once read;
// the status line shows the file's path escaped, the file has its name.
func TestExportIsExact(t *testing.T) {
	t.Parallel()
	odd := "a\"b\x1b[31m\u202e@x.io"
	store := fake(acct("ACCT#q1", odd, "quote"), lock("UNIQ#EMAIL#"+odd, "ACCT#q1"), lock("UNIQ#HANDLE#quote", "ACCT#q1"))
	dir := t.TempDir()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.exportTo(filepath.Join(dir, "q.csv"), false)
	_, rows := readCSV(t, filepath.Join(dir, "q.csv"))
	if len(rows) != 3 || rows[1][3] != odd || rows[1][4] != "UNIQ#EMAIL#"+odd {
		t.Errorf("the CSV does not hold the value exactly: %q", rows)
	}
	d.exportTo(filepath.Join(dir, "q.json"), false)
	raw, _ := os.ReadFile(filepath.Join(dir, "q.json"))
	if !strings.Contains(string(raw), `"value":"a\"b\u001b[31m\u202e@x.io"`) || strings.ContainsAny(string(raw), "\x1b\u202e") {
		t.Errorf("the JSON does not escape the value as check --json does:\n%s", raw)
	}
	if objs := readJSONLines(t, filepath.Join(dir, "q.json")); len(objs) != 3 || objs[1]["value"] != odd || objs[1]["lock"] != "UNIQ#EMAIL#"+odd {
		t.Errorf("the JSON does not read back as the value: %v", objs)
	}
	path := filepath.Join(dir, "r\u202eevil.csv")
	m, cmd := d.m.exportShown(path, false)
	d.m = m
	d.run(cmd)
	d.settle()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the file was not written under its name: %v", err)
	}
	if s := d.screen(); !strings.Contains(s, `r\u202eevil.csv`) || strings.Contains(s, "\u202e") {
		t.Errorf("the status line does not show the path escaped:\n%q", s)
	}
}
