package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestInitProposesLayout1: a table written like the article's signup
// (accounts, locks naming them) gets the schema that checks it.
func TestInitProposesLayout1(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	r := w.run("init", "--table", w.table)
	want := "--layout single --table " + w.table + " --pk PK --sk SK --account-prefix 'ACCT#' --account-sk PROFILE --lock-sk LOCK --owner-attr owner --unique 'email=UNIQ#EMAIL#' --unique 'username=UNIQ#HANDLE#'"
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, want) || !strings.Contains(r.stderr, "accounts: 3 items keyed ACCT#") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
}

// TestInitProposesLayout2: records in a table keyed by id, locks in tables
// keyed by the bare value, found among every table of the endpoint.
func TestInitProposesLayout2(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables))
	sc := store.Schema
	rec := func(id, mac, code string) model.Item {
		return model.Item{"id": model.S(id), "mac_address": model.S(mac), "registration_code": model.S(code)}
	}
	mac, rc := deviceValues(t)
	dynamotest.Put(t, client, sc.Table, rec("dev-1", mac(1), rc(1)), rec("dev-2", mac(2), rc(2)))
	dynamotest.Put(t, client, sc.Constraints[0].LockTable,
		model.Item{"MacAddress": model.S(mac(1)), "owner": model.S("dev-1")},
		model.Item{"MacAddress": model.S(mac(2)), "owner": model.S("dev-2")})
	dynamotest.Put(t, client, sc.Constraints[1].LockTable,
		model.Item{"RegistrationCode": model.S(rc(1)), "owner": model.S("dev-1")},
		model.Item{"RegistrationCode": model.S(rc(2)), "owner": model.S("dev-2")})
	r := run(t, "init", "--endpoint-url", ep, "--table", sc.Table)
	want := "--layout tables --table " + sc.Table + " --pk id --sk '' --owner-attr owner --unique mac_address=@" + sc.Constraints[0].LockTable +
		"/MacAddress --unique registration_code=@" + sc.Constraints[1].LockTable + "/RegistrationCode"
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, want) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
}

// deviceValues are MAC addresses and registration codes no other test's
// tables hold: init finds lock tables among every table of the endpoint
// by the values they share with the records, and the tests share one
// dynoxide, where seed's devices hold 02:00:00:00:00:01 (init took a
// lock table of another test for this one's, now and then).
func deviceValues(t *testing.T) (mac, rc func(n int) string) {
	tag := strings.TrimPrefix(dynamotest.Name(t, "v"), "v-") // 8 random hex digits
	mac = func(n int) string {
		return fmt.Sprintf("02:%s:%s:%s:%s:%02x", tag[0:2], tag[2:4], tag[4:6], tag[6:8], n)
	}
	rc = func(n int) string { return fmt.Sprintf("RC-%s-%d", tag, n) }
	return mac, rc
}

// TestInitSavesATarget: init --save writes the proposal as a target of the
// config file, and check --target uses it.
func TestInitSavesATarget(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("# my targets\n"), 0o600); err != nil { // --config must name a file
		t.Fatal(err)
	}
	r := w.run("init", "--table", w.table, "--save", "found", "--config", cfg)
	if r.code != cli.ExitOK || !strings.Contains(r.stderr, "saved target found to "+cfg) {
		t.Fatalf("init --save: exit %d, stderr %q", r.code, r.stderr)
	}
	data, _ := os.ReadFile(cfg)
	if !strings.Contains(string(data), "# my targets") || !strings.Contains(string(data), "account-prefix: ACCT#") {
		t.Errorf("config:\n%s", data)
	}
	r = run(t, "check", "--config", cfg, "--target", "found", "--json")
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, `"table":"`+w.table+`"`) {
		t.Fatalf("check --target found: exit %d, stdout %q, stderr %q\nconfig:\n%s", r.code, r.stdout, r.stderr, data)
	}
	// Saving the same name again is refused; the file is left as it was.
	r = w.run("init", "--table", w.table, "--save", "found", "--config", cfg)
	if after, _ := os.ReadFile(cfg); r.code != cli.ExitError || !strings.Contains(r.stderr, `a target "found" is there already`) || string(after) != string(data) {
		t.Fatalf("second save: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestInitSavesToTheFileItLoaded: --save writes to the config file the
// command loaded its settings from, not to whatever choosing the file
// again finds. Here the file is removed while init reads the table (on
// its first request): the target still goes to that path, where choosing
// again would have refused --config naming a file that is not there.
func TestInitSavesToTheFileItLoaded(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("# my targets\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(w.ep)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			if err := os.Remove(cfg); err != nil {
				t.Error(err)
			}
		})
		rp.ServeHTTP(wr, r)
	}))
	defer srv.Close()
	r := run(t, "init", "--table", w.table, "--save", "found", "--config", cfg, "--endpoint-url", srv.URL)
	if r.code != cli.ExitOK || !strings.Contains(r.stderr, "saved target found to "+cfg) {
		t.Fatalf("init --save: exit %d, stderr %q", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), "found:") || !strings.Contains(string(data), "account-prefix: ACCT#") {
		t.Errorf("config:\n%s", data)
	}
}
