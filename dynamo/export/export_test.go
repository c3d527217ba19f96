package export_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/model"
)

// ttlNow is the time the censuses judge TTLs at: the one the TTL cases
// of exporttest.Tables are around.
var ttlNow = model.Epoch(exporttest.TTLNow)

// direct is the census of the items themselves, as a scan would fill it.
func direct(s *model.Schema, tables map[string][]model.Item) *model.Census {
	c := model.NewCensus(s, ttlNow)
	for _, t := range s.Tables() {
		for _, it := range tables[t] {
			c.Add(t, it)
		}
	}
	return c
}

// summary is a census as a comparable text: its counts, then its
// problems one a line. Problems that tie on the contract's order (invalid
// owners of one value) come in any order, so the lines are sorted.
func summary(t *testing.T, c *model.Census) string {
	t.Helper()
	lines := []string{fmt.Sprintf("scanned %d, accounts %d, locks %d", c.Scanned, c.Accounts, c.Locks)}
	for _, p := range c.Problems() {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	slices.Sort(lines[1:])
	return strings.Join(lines, "\n")
}

// sameSummary fails with the first line that differs.
func sameSummary(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s: line %d of %d/%d differs\n got %.400s\nwant %.400s", what, i+1, len(g), len(w), gl, wl)
		}
	}
}

// writeAll exports every table of s into dir, all as of one time.
func writeAll(t *testing.T, dir string, s *model.Schema, tables map[string][]model.Item, o export.Options) {
	t.Helper()
	for _, table := range s.Tables() {
		o.Table = table
		o.Files = 3
		if o.ExportTime.IsZero() {
			o.ExportTime = exporttest.TTLNow // the time the TTL cases are around
		}
		if _, err := export.Write(dir, o, tables[table]); err != nil {
			t.Fatal(err)
		}
	}
}

func readCensus(t *testing.T, src export.Source, dir string, s *model.Schema) *model.Census {
	t.Helper()
	ctx := context.Background()
	found, err := export.Find(ctx, src, dir)
	if err != nil {
		t.Fatal(err)
	}
	exports, err := export.Match(s, []export.Found{{Location: dir, Exports: found}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := export.Census(ctx, s, exports, ttlNow, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExportCensusIsTheTables: an export written from items and read back
// gives the census of the items themselves, in both layouts, with TTL
// attributes (every TTL case) and without.
func TestExportCensusIsTheTables(t *testing.T) {
	for name, plain := range exporttest.Schemas() {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(3) {
				s := plain
				if seed > 0 {
					s = exporttest.WithTTL(plain)
				}
				tables := exporttest.Tables(rand.New(rand.NewPCG(seed, 1)), &s, 40)
				dir := t.TempDir()
				writeAll(t, dir, &s, tables, export.Options{Bucket: "b", Prefix: "exports/daily"})
				want := summary(t, direct(&s, tables))
				sameSummary(t, fmt.Sprintf("seed %d: the census of the export", seed), summary(t, readCensus(t, export.Dir{}, dir, &s)), want)
				if !strings.Contains(want, `"invalid_value"`) || !strings.Contains(want, `"foreign_lock"`) {
					t.Fatalf("the tables lack problems: %s", want)
				}
			}
		})
	}
}

// TestExportReadsTTLs: reading an export down to the attributes a check
// judges (Schema.ReadNames) keeps each table's TTL attribute as it is
// stored, a number's digits and all, and what is not one as what it is;
// the account table's TTL attribute on a lock table is not read.
func TestExportReadsTTLs(t *testing.T) {
	s := exporttest.WithTTL(model.DefaultSchema(model.LayoutTables))
	ttls := []model.Value{model.N("1709296200"), model.N("1709296200.75"), model.N("1709296200000"), model.S("1709296200"), model.Null()}
	tables := map[string][]model.Item{}
	for i, v := range ttls {
		id := fmt.Sprint(i)
		tables[s.Table] = append(tables[s.Table], model.Item{s.PK: model.S(id), s.TTLAttr: v, "other": model.S("x")})
		table, key := s.LockKey(0, id)
		tables[table] = append(tables[table], model.Item{s.Constraints[0].KeyAttr: model.S(key[s.Constraints[0].KeyAttr]), s.LockTTLAttr(0): v, s.TTLAttr: model.N("1")})
	}
	dir := t.TempDir()
	writeAll(t, dir, &s, tables, export.Options{})
	ctx := context.Background()
	found, err := export.Find(ctx, export.Dir{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	exports, err := export.Match(&s, []export.Found{{Location: dir, Exports: found}})
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{s.Table, s.Constraints[0].LockTable} {
		attr := s.TTLAttrOf(table)
		got := map[string]model.Value{}
		err := exports[table].Items(ctx, s.ReadNames(table), func(it model.Item) error {
			key := it[s.PK]
			if table != s.Table {
				key = it[s.Constraints[0].KeyAttr]
				if _, ok := it[s.TTLAttr]; ok {
					t.Errorf("%s: the account table's TTL attribute %s was read", table, s.TTLAttr)
				}
			}
			got[key.S] = it[attr]
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range ttls {
			if g := got[fmt.Sprint(i)]; g.DynamoJSON() != v.DynamoJSON() {
				t.Errorf("%s item %d: %s is %s, want %s", table, i, attr, g.DynamoJSON(), v.DynamoJSON())
			}
		}
	}
}

// TestExportFromS3: the same export served by an S3 (in process) reads
// the same as the directory.
func TestExportFromS3(t *testing.T) {
	s := exporttest.Schemas()["tables"]
	tables := exporttest.Tables(rand.New(rand.NewPCG(7, 7)), &s, 30)
	dir := t.TempDir()
	writeAll(t, dir, &s, tables, export.Options{Bucket: "snapshots", Prefix: "ddb/2024"})

	url := exporttest.S3(t, "snapshots", dir, "ddb/2024")
	client, err := export.NewS3Client(context.Background(), dynamo.ClientOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	got := summary(t, readCensus(t, export.S3{API: client, Bucket: "snapshots"}, "ddb/2024", &s))
	sameSummary(t, "the census of the S3 export", got, summary(t, direct(&s, tables)))
}

// TestDamagedExportsAreRefused: a truncated, altered or partial copy is
// an error, never a census of fewer items.
func TestDamagedExportsAreRefused(t *testing.T) {
	s := model.DefaultSchema(model.LayoutSingle)
	items := []model.Item{
		{"PK": model.S("ACCT#1"), "SK": model.S("PROFILE"), "email": model.S("a@x.io")},
		{"PK": model.S("UNIQ#EMAIL#a@x.io"), "SK": model.S("LOCK")},
	}
	ctx := context.Background()
	cases := map[string]func(t *testing.T, exportDir string){
		"a data file cut short": func(t *testing.T, exportDir string) {
			rewriteData(t, exportDir, func(lines []string) []string { return lines[:len(lines)-1] })
		},
		"a data file altered": func(t *testing.T, exportDir string) {
			rewriteData(t, exportDir, func(lines []string) []string {
				lines[0] = strings.Replace(lines[0], `"S":"`, `"S":"x`, 1)
				return lines
			})
		},
		"a data file missing": func(t *testing.T, exportDir string) {
			files, _ := filepath.Glob(filepath.Join(exportDir, "data", "*"))
			os.Remove(files[0])
		},
		"a line that is not DynamoDB JSON": func(t *testing.T, exportDir string) {
			rewriteData(t, exportDir, func(lines []string) []string {
				lines[0] = `{"Item":{"PK":{"X":"1"}}}`
				return lines
			})
		},
	}
	want := map[string]string{
		"a data file cut short":            "holds 1 items, the manifest says 2",
		"a data file altered":              "MD5",
		"a data file missing":              "no such file",
		"a line that is not DynamoDB JSON": `line 1: attribute PK: unknown DynamoDB type "X"`,
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			exportDir, err := export.Write(dir, export.Options{Table: "accounts", ExportTime: exporttest.TTLNow}, items)
			if err != nil {
				t.Fatal(err)
			}
			damage(t, exportDir)
			found, err := export.Find(ctx, export.Dir{}, dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = export.Census(ctx, &s, map[string]*export.Export{"accounts": found[0]}, 0, 0, nil)
			if err == nil || !strings.Contains(err.Error(), want[name]) {
				t.Fatalf("error %v, want one that says %q", err, want[name])
			}
		})
	}
}

// rewriteData rewrites the lines of the export's only data file and, so
// that only the content is wrong, keeps its manifest entry.
func rewriteData(t *testing.T, exportDir string, edit func([]string) []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(exportDir, "data", "*.json.gz"))
	if len(files) != 1 {
		t.Fatalf("%d data files", len(files))
	}
	f, _ := os.Open(files[0])
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(zr)
	f.Close()
	lines := edit(strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"))
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write([]byte(strings.Join(lines, "\n") + "\n"))
	zw.Close()
	if err := os.WriteFile(files[0], out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMatch: exports are matched to the schema's tables by name; two of
// one table, or none, say how to choose.
func TestMatch(t *testing.T) {
	s := model.DefaultSchema(model.LayoutTables)
	dir := t.TempDir()
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, table := range append(s.Tables(), "unrelated") {
		if _, err := export.Write(dir, export.Options{Table: table, ExportTime: at}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	found, err := export.Find(ctx, export.Dir{}, dir)
	if err != nil || len(found) != 4 {
		t.Fatalf("found %d exports, %v", len(found), err)
	}
	picked, err := export.Match(&s, []export.Found{{Location: dir, Exports: found}})
	if err != nil || len(picked) != 3 {
		t.Fatalf("picked %v, %v", picked, err)
	}
	if asOf, note := export.AsOf(picked); !asOf.Equal(at) || note != "" {
		t.Errorf("as of %v, note %q", asOf, note)
	}
	// A second export of devices under the same prefix: ambiguous.
	later := at.Add(time.Hour)
	again, err := export.Write(dir, export.Options{Table: "devices", ExportTime: later}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found, _ = export.Find(ctx, export.Dir{}, dir)
	_, err = export.Match(&s, []export.Found{{Location: dir, Exports: found}})
	if err == nil || !strings.Contains(err.Error(), "two exports of table devices") {
		t.Fatalf("two exports of devices: %v", err)
	}
	// Naming the export's own directory picks it, and the times differ.
	one, err := export.Find(ctx, export.Dir{}, again)
	if err != nil || len(one) != 1 {
		t.Fatalf("find %s: %d, %v", again, len(one), err)
	}
	var rest []*export.Export
	for _, e := range found {
		if e.Table() != "devices" {
			rest = append(rest, e)
		}
	}
	picked, err = export.Match(&s, []export.Found{{Location: dir, Exports: rest}, {Location: again, Table: "devices", Exports: one}})
	if err != nil {
		t.Fatal(err)
	}
	if asOf, note := export.AsOf(picked); !asOf.Equal(at) || !strings.Contains(note, "different times") {
		t.Errorf("as of %v, note %q", asOf, note)
	}
	// No export of a lock table.
	_, err = export.Match(&s, []export.Found{{Location: again, Exports: one}})
	if err == nil || !strings.Contains(err.Error(), "no export of table unique_mac_addresses") {
		t.Fatalf("missing table: %v", err)
	}
	if _, err := export.Find(ctx, export.Dir{}, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no DynamoDB export") {
		t.Fatalf("empty dir: %v", err)
	}
}
