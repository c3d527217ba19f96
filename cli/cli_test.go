package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// result is what one in-process run of locktable left behind.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// run runs locktable in process at the machine's time.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runAt(t, clock.System(), args...)
}

// runAt runs locktable in process at the time clk tells, as main hands
// the process's clock down.
func runAt(t *testing.T, clk clock.Clock, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := cli.Main(ctx, clk, cli.BuildInfo{Version: "test"}, args, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
}

// wantError asserts an error exit: the code, nothing on stdout, and one
// stderr line "locktable: ..." that contains every one of want.
func wantError(t *testing.T, r result, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty on error: %q", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "locktable: ") || !strings.HasSuffix(r.stderr, "\n") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("stderr is not one line starting with \"locktable: \": %q", r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr %q does not mention %q", r.stderr, w)
		}
	}
}

// tableExists reports whether table exists on the emulator.
func tableExists(t *testing.T, client *dynamodb.Client, table string) bool {
	t.Helper()
	_, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case err == nil:
		return true
	case errors.As(err, &notFound):
		return false
	}
	t.Fatalf("describe %s: %v", table, err)
	return false
}

// cleanup deletes tables when the test ends.
func cleanup(t *testing.T, client *dynamodb.Client, tables ...string) {
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, tables...) })
}

// closedPort returns a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

func TestInvalidFlags(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"layout", []string{"--layout", "nope"}, []string{"--layout", "nope"}},
		{"unique without =", []string{"--unique", "email"}, []string{"--unique", "email", "'='"}},
		{"unique empty prefix", []string{"--unique", "email="}, []string{"--unique", "email", "empty lock prefix"}},
		{"unique prefix of another", []string{"--unique", "a=X#", "--unique", "b=X#Y"}, []string{"--unique", `"X#"`, `"X#Y"`}},
		{"unique repeated", []string{"--unique", "email=A#", "--unique", "email=B#"}, []string{"--unique", "email", "twice"}},
		{"normalize unknown form", []string{"--normalize", "email=upper"}, []string{"--normalize", "upper"}},
		{"normalize unknown attribute", []string{"--normalize", "nosuch=lower"}, []string{"--normalize", "nosuch"}},
		{"segments", []string{"--segments", "0"}, []string{"--segments"}},
		{"unknown flag", []string{"--nosuch-flag"}, []string{"unknown flag", "--nosuch-flag"}},
		{"an argument without --merge", []string{"a.part.gz"}, []string{"no arguments", "--merge"}},
		{"--merge without parts", []string{"--merge"}, []string{"--merge", "FILE..."}},
		{"--segment-range without --partial", []string{"--segment-range", "0-1"}, []string{"--segment-range and --partial go together"}},
		{"--partial without --segment-range", []string{"--partial", "a.part.gz"}, []string{"--segment-range and --partial go together"}},
		{"--merge and --partial", []string{"--merge", "b.part.gz", "--segment-range", "0-1", "--partial", "a.part.gz"}, []string{"--merge and --partial"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, append([]string{"check", "--endpoint-url", ep}, c.args...)...)
			wantError(t, r, cli.ExitError, c.want...)
		})
	}
}

func TestGlobalFlagsBeforeAndAfterSubcommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--demo", "check", "--json"}, {"check", "--json", "--demo"}} {
		r := run(t, args...)
		if r.code != cli.ExitProblems || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q; want exit 1 and no stderr", args, r.code, r.stderr)
		}
		var report struct{ Problems []json.RawMessage }
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Problems) == 0 {
			t.Fatalf("%v: stdout is not a report with problems (%v): %.300s", args, err, r.stdout)
		}
	}
}

func TestMissingTable(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "nosuch")
	r := run(t, "check", "--endpoint-url", ep, "--table", table)
	wantError(t, r, cli.ExitError, table, ep, "not found")
	if tableExists(t, client, table) {
		t.Fatalf("check created %s", table)
	}
}

func TestTableWithOtherKeys(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables)) // keyed id
	r := run(t, "check", "--endpoint-url", ep, "--table", store.Schema.Table)
	wantError(t, r, cli.ExitError, store.Schema.Table, "has key id ")
}

func TestUnreachableEndpoint(t *testing.T) {
	t.Parallel()
	url := closedPort(t)
	r := run(t, "check", "--endpoint-url", url)
	wantError(t, r, cli.ExitError, "cannot reach", url)
	if r.elapsed > 10*time.Second {
		t.Fatalf("took %v to give up on a closed port; want under 10s", r.elapsed)
	}
}

func TestRejectedCredentials(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"UnrecognizedClientException", "ExpiredTokenException"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"The security token included in the request is invalid."}`))
			}))
			defer srv.Close()
			r := run(t, "check", "--endpoint-url", srv.URL)
			wantError(t, r, cli.ExitError, "credentials rejected", code, srv.URL)
			if calls.Load() == 0 {
				t.Fatal("the fake endpoint saw no request")
			}
		})
	}
}

// TestAnErrorPageIsNotDynamoDB: a proxy answering 500 with its HTML page
// read "deserialization failed ... invalid character '<'"; check says
// what the endpoint answered.
func TestAnErrorPageIsNotDynamoDB(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<html><body><h1>500 Internal Server Error</h1></body></html>"))
	}))
	defer srv.Close()
	r := run(t, "check", "--endpoint-url", srv.URL)
	wantError(t, r, cli.ExitError, "the endpoint answered 500 (not DynamoDB JSON)", srv.URL)
	if strings.Contains(r.stderr, "invalid character") {
		t.Errorf("stderr %q reads like a decoding bug", r.stderr)
	}
	if calls.Load() == 0 {
		t.Fatal("the fake endpoint saw no request")
	}
}

func TestMissingCredentials(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME":                        home,
		"AWS_ACCESS_KEY_ID":           "",
		"AWS_SECRET_ACCESS_KEY":       "",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_DEFAULT_PROFILE":         "",
		"AWS_CONFIG_FILE":             filepath.Join(home, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "no-credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_DYNAMODB":   "",
	} {
		t.Setenv(k, v)
	}
	// dynamodb.invalid never resolves: reaching it would say "cannot
	// reach", so the message also proves no request was attempted.
	r := run(t, "check", "--endpoint-url", "http://dynamodb.invalid", "--region", "us-east-1")
	wantError(t, r, cli.ExitError, "no usable AWS credentials", "http://dynamodb.invalid")
	if r.elapsed > 10*time.Second {
		t.Fatalf("took %v", r.elapsed)
	}
}

func TestSeedRefusals(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	cleanup(t, client, table)
	audit := filepath.Join(t.TempDir(), "audit.log")
	r := run(t, "seed", "--read-only", "--endpoint-url", ep, "--table", table, "--audit-log", audit)
	wantError(t, r, cli.ExitError, "--read-only")
	if tableExists(t, client, table) {
		t.Fatalf("seed --read-only created %s", table)
	}
	if data, _ := os.ReadFile(audit); !strings.Contains(string(data), `"event":"refused","operation":"seed"`) {
		t.Errorf("the refused seed is not in the audit log: %q", data)
	}

	// Not loopback, no --write: refused before any request (the host
	// never resolves, so a request would fail with "cannot reach").
	r = run(t, "seed", "--endpoint-url", "http://dynamodb.invalid", "--region", "us-east-1")
	wantError(t, r, cli.ExitError, "--write", "http://dynamodb.invalid")
}

// seed runs locktable seed and registers the tables for deletion.
func seed(t *testing.T, client *dynamodb.Client, tables []string, args ...string) {
	t.Helper()
	cleanup(t, client, tables...)
	r := run(t, append([]string{"seed"}, args...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("seed %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
}

type jsonReport struct {
	Table    string `json:"table"`
	Problems []struct {
		Kind     string `json:"kind"`
		Accounts any    `json:"accounts"`
	} `json:"problems"`
}

func decodeReport(t *testing.T, stdout string) jsonReport {
	t.Helper()
	var rep jsonReport
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%.500s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout has more than one JSON value: %.500s", stdout)
	}
	return rep
}

func TestCheckHumanReport(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	seed(t, client, []string{table}, "--endpoint-url", ep, "--table", table, "--accounts", "10", "--anomalies")

	r := run(t, "check", "--endpoint-url", ep, "--table", table)
	if r.code != cli.ExitProblems || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and nothing\n%s", r.code, r.stderr, r.stdout)
	}
	j := run(t, "check", "--endpoint-url", ep, "--table", table, "--json")
	if j.code != cli.ExitProblems {
		t.Fatalf("--json: exit %d", j.code)
	}
	want := map[string]int{}
	for _, p := range decodeReport(t, j.stdout).Problems {
		want[p.Kind]++
	}
	total := 0
	for _, k := range model.ProblemKinds {
		kind := string(k)
		// seed plants the four repairable kinds (TTL ones only on a table with TTL)
		if want[kind] == 0 && k != model.InvalidValue && k != model.ExpiredLock && k != model.ExpiringLock {
			t.Errorf("the seeded table has no %s", kind)
		}
		m := regexp.MustCompile(`(?m)^` + kind + `\s+(\d+)$`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Errorf("no count line for %s:\n%s", kind, r.stdout)
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n != want[kind] {
			t.Errorf("%s count %d, want %d (as --json reports)", kind, n, want[kind])
		}
		lines := regexp.MustCompile(`(?m)^`+kind+`\s+(email|username) .*$`).FindAllString(r.stdout, -1)
		if len(lines) != want[kind] {
			t.Errorf("%d %s problem lines, want %d:\n%s", len(lines), kind, want[kind], r.stdout)
		}
		total += len(lines)
	}
	if got := strings.Count(r.stdout, "\n"); total == 0 || got < total+len(model.ProblemKinds) {
		t.Errorf("report has %d lines for %d problems:\n%s", got, total, r.stdout)
	}
}

func TestCheckCleanTable(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	seed(t, client, []string{table}, "--endpoint-url", ep, "--table", table, "--accounts", "10")

	r := run(t, "check", "--endpoint-url", ep, "--table", table)
	if r.code != cli.ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0\n%s", r.code, r.stderr, r.stdout)
	}
	for _, k := range model.ProblemKinds {
		if !regexp.MustCompile(`(?m)^` + string(k) + `\s+0$`).MatchString(r.stdout) {
			t.Errorf("no zero count for %s:\n%s", k, r.stdout)
		}
	}
	j := run(t, "check", "--endpoint-url", ep, "--table", table, "--json")
	if j.code != cli.ExitOK || !strings.Contains(j.stdout, `"problems":[]`) {
		t.Fatalf("--json: exit %d, want 0 and \"problems\":[]\n%s", j.code, j.stdout)
	}
	if rep := decodeReport(t, j.stdout); rep.Table != table {
		t.Errorf("table %q, want %q", rep.Table, table)
	}
}

func TestCheckJSONLayoutTables(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	devices, macs, codes := dynamotest.Name(t, "devices"), dynamotest.Name(t, "macs"), dynamotest.Name(t, "codes")
	schema := []string{"--endpoint-url", ep, "--layout", "tables", "--table", devices,
		"--unique", "mac_address=@" + macs + "/MacAddress",
		"--unique", "registration_code=@" + codes + "/RegistrationCode"}
	seed(t, client, []string{devices, macs, codes}, append(schema, "--anomalies")...)

	r := run(t, append([]string{"check", "--json"}, schema...)...)
	if r.code != cli.ExitProblems || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1\n%s", r.code, r.stderr, r.stdout)
	}
	rep := decodeReport(t, r.stdout)
	if rep.Table != devices {
		t.Errorf("table %q, want %q", rep.Table, devices)
	}
	n := map[string]int{}
	for i, p := range rep.Problems {
		n[p.Kind]++
		if _, ok := p.Accounts.([]any); !ok {
			t.Errorf("problem %d (%s): accounts is %#v, not an array", i, p.Kind, p.Accounts)
		}
	}
	for _, k := range []model.ProblemKind{model.MissingLock, model.OrphanLock, model.ForeignLock, model.DuplicateValue} {
		if n[string(k)] < 2 {
			t.Errorf("%d %s problems, want at least 2 (all: %v)", n[string(k)], k, n)
		}
	}
}

// TestSeedIsAudited: seeding writes, and left nothing in the audit log.
// It records its intent before writing and its outcome after.
func TestSeedIsAudited(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	audit := filepath.Join(t.TempDir(), "audit.log")
	seed(t, client, []string{table}, "--endpoint-url", ep, "--table", table, "--accounts", "3", "--audit-log", audit)
	data, _ := os.ReadFile(audit)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"event":"intent","operation":"seed","table":"`+table+`"`) ||
		!strings.Contains(lines[1], `"event":"outcome","operation":"seed"`) || !strings.Contains(lines[1], `"outcome":"committed"`) {
		t.Fatalf("audit log %q; want the seed's intent and outcome", data)
	}
}

// TestSeedJSON: seed --json prints one object like the other commands.
func TestSeedJSON(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	cleanup(t, client, table)
	r := run(t, "seed", "--endpoint-url", ep, "--table", table, "--accounts", "2", "--json", "--audit-log", filepath.Join(t.TempDir(), "a.log"))
	var got struct {
		Tables       []string
		Created      []string
		Accounts     int
		AnomalyCases int `json:"anomaly_cases"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Accounts != 2 || len(got.Created) != 1 || got.Tables[0] != table {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
