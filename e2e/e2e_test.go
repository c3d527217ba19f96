package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// root is the module's directory, from this package's: the binary is
// built there, and the docs are read there.
const root = ".."

// binary is the locktable built once for every test here.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "locktable-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "locktable")
	// Commands run without --audit-log keep their default log here, not
	// in the developer's home; the developer's config file and
	// LOCKTABLE_<FLAG> variables stay out of the tests.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LOCKTABLE_") && !strings.HasPrefix(k, "LOCKTABLE_TEST_") && !strings.HasPrefix(k, "LOCKTABLE_RELIABILITY_") {
			os.Unsetenv(k)
		}
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build locktable:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type execResult struct {
	code           int
	stdout, stderr string
}

// locktable runs the binary with no stdin (not a terminal) and env added
// to (and overriding) the test's environment.
func locktable(t *testing.T, env map[string]string, args ...string) execResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdin = nil
	cmd.Env = environ(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("run locktable %v: %v", args, err)
	}
	return execResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// environ returns the test's environment with the keys of env replaced.
func environ(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := env[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

type report struct {
	Table    string `json:"table"`
	Problems []struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Accounts any    `json:"accounts"`
	} `json:"problems"`
}

// oneReport decodes stdout, which must be exactly one JSON object on one line.
func oneReport(t *testing.T, stdout string) report {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout is not one line: %.500q", stdout)
	}
	var r report
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%.500s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value: %.500s", stdout)
	}
	return r
}

// wantEveryKind asserts at least two problems of each holder/lock kind,
// and that every accounts is an array.
func wantEveryKind(t *testing.T, r report) {
	t.Helper()
	n := map[string]int{}
	for i, p := range r.Problems {
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

func TestE2EDemoJSON(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"single", "tables"} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			r := locktable(t, nil, "check", "--demo", "--json", "--layout", layout)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", r.code, r.stderr)
			}
			if r.stderr != "" {
				t.Fatalf("stderr not empty: %q", r.stderr)
			}
			wantEveryKind(t, oneReport(t, r.stdout))
		})
	}
}

func TestE2EDemoHuman(t *testing.T) {
	t.Parallel()
	r := locktable(t, nil, "check", "--demo")
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and nothing", r.code, r.stderr)
	}
	for _, k := range model.ProblemKinds {
		if !strings.Contains(r.stdout, string(k)) {
			t.Errorf("report does not name %s:\n%s", k, r.stdout)
		}
	}
}

func TestE2ESeedThenCheck(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })

	r := locktable(t, nil, "seed", "--endpoint-url", ep, "--table", table, "--anomalies")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("seed: exit %d, stderr %q", r.code, r.stderr)
	}
	r = locktable(t, nil, "check", "--endpoint-url", ep, "--table", table, "--json")
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("check: exit %d, stderr %q; want 1 and nothing", r.code, r.stderr)
	}
	rep := oneReport(t, r.stdout)
	if rep.Table != table {
		t.Errorf("table %q, want %q", rep.Table, table)
	}
	wantEveryKind(t, rep)
}

// recorder is a loopback HTTP proxy that records every request sent
// through it and answers as AWS does to credentials it does not know.
type recorder struct {
	mu    sync.Mutex
	hosts []string
}

func (p *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.hosts = append(p.hosts, r.Host)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException","message":"The security token included in the request is invalid."}`))
}

func (p *recorder) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.hosts)
}

// proxied starts a recorder and returns it with the environment that sends
// every plain-HTTP and HTTPS request through it, with dummy credentials and
// no endpoint from the test's own environment.
func proxied(t *testing.T) (*recorder, map[string]string) {
	proxy := &recorder{}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return proxy, map[string]string{
		"HTTP_PROXY": srv.URL, "http_proxy": srv.URL, "HTTPS_PROXY": srv.URL, "https_proxy": srv.URL, "NO_PROXY": "", "no_proxy": "",
		"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_SESSION_TOKEN": "",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_DYNAMODB": "",
	}
}

// TestE2ERefusalsSendNothing routes every request for a non-loopback
// endpoint through a recording proxy on loopback, and checks that a seed
// refused for lack of --write, and a check without credentials, send none.
func TestE2ERefusalsSendNothing(t *testing.T) {
	t.Parallel()
	proxy, env := proxied(t)
	remote := []string{"--endpoint-url", "http://dynamodb.invalid", "--region", "us-east-1"}

	// The control: with credentials, a check does go through the proxy.
	r := locktable(t, env, append([]string{"check"}, remote...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "credentials rejected") || proxy.count() == 0 {
		t.Fatalf("control check: exit %d, stderr %q, %d requests proxied; the proxy does not see the requests", r.code, r.stderr, proxy.count())
	}
	before := proxy.count()

	r = locktable(t, env, append([]string{"seed"}, remote...)...)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "locktable: ") || !strings.Contains(r.stderr, "--write") {
		t.Errorf("seed without --write: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := proxy.count() - before; n != 0 {
		t.Errorf("seed without --write sent %d requests before refusing", n)
	}

	home := t.TempDir()
	env["HOME"] = home
	env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_PROFILE"], env["AWS_DEFAULT_PROFILE"] = "", "", "", ""
	env["AWS_CONFIG_FILE"] = filepath.Join(home, "no-config")
	env["AWS_SHARED_CREDENTIALS_FILE"] = filepath.Join(home, "no-credentials")
	before = proxy.count()
	r = locktable(t, env, append([]string{"check"}, remote...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "no usable AWS credentials") {
		t.Errorf("check without credentials: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := proxy.count() - before; n != 0 {
		t.Errorf("check without credentials sent %d requests", n)
	}
}
