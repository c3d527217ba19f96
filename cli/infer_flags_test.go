package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/model"
)

// The schemas init proposes (model.InferSchema), as the flags that say
// them (cli.SchemaFlags).

// single is a layout-1 sample: accounts, their locks naming them, and
// one item of another kind.
func single(lowerEmails bool) model.Sample {
	sm := model.Sample{Table: "app", PK: "pk", SK: "sk"}
	for _, n := range []string{"ada", "bob", "cy", "dee"} {
		email := strings.ToUpper(n[:1]) + n[1:] + "@X.io"
		lock := email
		if lowerEmails {
			lock = strings.ToLower(email)
		}
		sm.Items = append(sm.Items,
			item("pk", "USER#"+n, "sk", "META", "mail", email, "handle", n, "bio", "hi"),
			item("pk", "LOCK#MAIL#"+lock, "sk", "UNIQUE", "by", "USER#"+n),
			item("pk", "LOCK#HANDLE#"+n, "sk", "UNIQUE", "by", "USER#"+n))
	}
	sm.Items = append(sm.Items, item("pk", "ORDER#1", "sk", "META", "total", "12"))
	return sm
}

func TestInferSchemaLayout1(t *testing.T) {
	for _, lower := range []bool{false, true} {
		s, notes, err := model.InferSchema(single(lower), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"--layout", "single", "--table", "app", "--pk", "pk", "--sk", "sk", "--account-prefix", "USER#",
			"--account-sk", "META", "--lock-sk", "UNIQUE", "--owner-attr", "by", "--unique", "handle=LOCK#HANDLE#", "--unique", "mail=LOCK#MAIL#"}
		if lower {
			want = append(want, "--normalize", "mail=lower")
		}
		if got := cli.SchemaFlags(&s); !slices.Equal(got, want) {
			t.Errorf("lower %v: flags\n got %q\nwant %q\nnotes %q", lower, got, want, notes)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("the proposed schema does not validate: %v", err)
		}
	}
}

// Accounts that carry their id (the key after the account prefix) in an
// attribute: init proposes --id-attr. The unique handle, equal to the id
// here, is not a candidate.
func TestInferSchemaIDAttr(t *testing.T) {
	sm := single(false)
	for _, it := range sm.Items {
		if rest, ok := strings.CutPrefix(it["pk"].S, "USER#"); ok {
			it["uid"] = model.S(rest)
		}
	}
	s, notes, err := model.InferSchema(sm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.IDAttr != "uid" || !slices.Contains(cli.SchemaFlags(&s), "--id-attr") || !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "id attribute: uid") }) {
		t.Errorf("id attribute %q, flags %q, notes %q", s.IDAttr, cli.SchemaFlags(&s), notes)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("the proposed schema does not validate: %v", err)
	}
}

func TestInferSchemaLayout2(t *testing.T) {
	main := model.Sample{Table: "devices", PK: "id", Items: []model.Item{
		item("id", "d1", "mac", "aa", "code", "C1"), item("id", "d2", "mac", "bb", "code", "C2")}}
	others := []model.Sample{
		{Table: "macs", PK: "Mac", Items: []model.Item{item("Mac", "aa", "owner", "d1"), item("Mac", "bb", "owner", "d2")}},
		{Table: "codes", PK: "Code", Items: []model.Item{item("Code", "C1"), item("Code", "C2")}},
		{Table: "unrelated", PK: "k", Items: []model.Item{item("k", "zz")}},
		{Table: "ranged", PK: "a", SK: "b", Items: []model.Item{item("a", "aa", "b", "x")}},
	}
	s, notes, err := model.InferSchema(main, others)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--layout", "tables", "--table", "devices", "--pk", "id", "--sk", "", "--owner-attr", "owner",
		"--unique", "mac=@macs/Mac", "--unique", "code=@codes/Code"}
	if got := cli.SchemaFlags(&s); !slices.Equal(got, want) {
		t.Errorf("flags\n got %q\nwant %q\nnotes %q", got, want, notes)
	}
}

// TestInferSchemaLayout2TakesTheBestLockTable: another table keyed like
// a lock table, listed first, whose values match one record by chance
// (another app's, or another test's on a shared emulator: it made
// TestInitProposesLayout2 fail in CI), is not taken over the table whose
// values all match.
func TestInferSchemaLayout2TakesTheBestLockTable(t *testing.T) {
	main := model.Sample{Table: "devices", PK: "id", Items: []model.Item{
		item("id", "d1", "mac", "aa", "code", "C1"), item("id", "d2", "mac", "bb", "code", "C2")}}
	others := []model.Sample{
		{Table: "a-other-macs", PK: "Mac", Items: []model.Item{item("Mac", "aa", "owner", "x1"), item("Mac", "zz", "owner", "x2")}},
		{Table: "codes", PK: "Code", Items: []model.Item{item("Code", "C1", "owner", "d1"), item("Code", "C2", "owner", "d2")}},
		{Table: "unique-macs", PK: "Mac", Items: []model.Item{item("Mac", "aa", "owner", "d1"), item("Mac", "bb", "owner", "d2")}},
	}
	s, notes, err := model.InferSchema(main, others)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--layout", "tables", "--table", "devices", "--pk", "id", "--sk", "", "--owner-attr", "owner",
		"--unique", "code=@codes/Code", "--unique", "mac=@unique-macs/Mac"}
	if got := cli.SchemaFlags(&s); !slices.Equal(got, want) {
		t.Errorf("flags\n got %q\nwant %q\nnotes %q", got, want, notes)
	}
}

// A preset's schema whose new locks are written in OneTable's older
// spelling renders it, and each constraint the preset derives as the
// attribute alone.
func TestLockSpellingFlags(t *testing.T) {
	s := model.DefaultSchema(model.LayoutSingle)
	if err := (model.Preset{Schema: &s}).Apply("onetable:User"); err != nil {
		t.Fatal(err)
	}
	s.Table, s.PK, s.SK, s.AccountSK, s.KeysFromTable = "app", "pk", "sk", "user#", false
	for _, a := range []string{"email", "username"} {
		s.Constraints = append(s.Constraints, model.Preset{Schema: &s}.Unique(a))
	}
	if err := (model.Preset{Schema: &s}).SetLockSpelling(model.SpellingOlder); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(cli.SchemaFlags(&s), " "), "--preset onetable:User --table app --account-sk user# --unique email --unique username --lock-spelling older"; got != want {
		t.Errorf("Flags = %s\nwant %s", got, want)
	}
}

// offlineFlags are cli.SchemaFlags plus what a preset otherwise reads
// from the live table (its key names): the flags for commands that read
// nothing from DynamoDB (check --export without --confirm, sql).
func offlineFlags(s *model.Schema) []string {
	f := cli.SchemaFlags(s)
	if s.Preset != "" {
		f = append(f, "--pk", s.PK, "--sk", s.SK)
	}
	if lib, _, _ := model.ParsePreset(s.Preset); lib == model.LibElectroDB && s.ConstraintEntity.Service == "" {
		// The service keys the documented constraint; the table says it
		// online, offline it is given.
		f = append(f, "--constraint-entity", "service="+model.ServiceOf(s.Constraints[0].Prefix))
	}
	return f
}
