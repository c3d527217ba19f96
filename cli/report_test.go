package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// hostile holds what defect 5 found passing the sanitizer, with a control
// character and a space (the human report quotes values with spaces).
const hostile = "a b\x1b\u2028\u2029\U000E0041\u00ad\u206a"

func hostileReport() model.Report {
	return model.Report{Table: "accounts", Problems: []model.Problem{
		{Kind: model.OrphanLock, Constraint: "email", Value: hostile, Owner: "ACCT#" + hostile, Accounts: []string{},
			Lock: map[string]string{"PK": "UNIQ#EMAIL#" + hostile, "SK": "LOCK"}},
		{Kind: model.DuplicateValue, Constraint: "username", Value: hostile, Accounts: []string{"ACCT#1" + hostile, "ACCT#2"}},
	}}
}

// noHidden fails when out holds a character Hidden reports, other than
// the newlines that end its lines.
func noHidden(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range out {
		if r != '\n' && model.Hidden(r) {
			t.Errorf("%s holds %U raw:\n%q", what, r, out)
		}
	}
}

func TestHumanReportEscapesOnce(t *testing.T) {
	var b bytes.Buffer
	if err := writeReport(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	noHidden(t, "the human report", out)
	const shown = `a b\x1b\u2028\u2029\U000e0041\u00ad\u206a`
	for _, want := range []string{
		`orphan_lock      email "` + shown + `"  lock "PK=UNIQ#EMAIL#` + shown + `,SK=LOCK"  owner "ACCT#` + shown + `"`,
		`duplicate_value  username "` + shown + `"  accounts "ACCT#1` + shown + `",ACCT#2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %s:\n%s", want, out)
		}
	}
}

func TestJSONReportEscapesHidden(t *testing.T) {
	var b bytes.Buffer
	if err := writeJSON(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	noHidden(t, "check --json", out)
	if !strings.Contains(out, `"value":"a b\u001b\u2028\u2029\udb40\udc41\u00ad\u206a"`) {
		t.Errorf("the value is not written as \\u escapes:\n%s", out)
	}
	var back model.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if back.Problems[0].Value != hostile || back.Problems[0].Owner != "ACCT#"+hostile || back.Problems[1].Accounts[0] != "ACCT#1"+hostile {
		t.Errorf("the report decodes to %+v, not the values as stored", back.Problems)
	}
}
