package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// missingLocks is a table of n accounts ACCT#k0000... holding usernames
// k0..., each with its email lock and without its username lock: n
// repairable missing_locks. It returns the items of the missing locks.
func missingLocks(t *testing.T, w writeEnv, n int) []model.Item {
	t.Helper()
	var items, locks []model.Item
	for i := range n {
		id, email, user := fmt.Sprintf("ACCT#k%04d", i), fmt.Sprintf("k%d@x.io", i), fmt.Sprintf("k%d", i)
		items = append(items, dynamotest.Account(id, email, user), dynamotest.Lock("UNIQ#EMAIL#"+email, id))
		locks = append(locks, dynamotest.Lock("UNIQ#HANDLE#"+user, id))
	}
	dynamotest.Put(t, w.client, w.table, items...)
	return locks
}

// TestRepairAlreadyRepairedByAnother: another writer puts every missing
// lock, exactly as the repair would, after this repair planned and before
// it sends (a proxy does it on the first repair's transaction). Each repair was
// reported cancelled, "username k0 is taken by ACCT#k0000", the account it
// was repairing, and the command exited 3 on a clean table. Now each is
// skipped as already repaired, and the exit is 0.
func TestRepairAlreadyRepairedByAnother(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	locks := missingLocks(t, w, 3)
	u, err := url.Parse(w.ep)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
			// The first repair's, not the probe's condition checks.
			body, _ := io.ReadAll(r.Body)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			if bytes.Contains(body, []byte(`"Put":`)) {
				once.Do(func() { dynamotest.Put(t, w.client, w.table, locks...) })
			}
		}
		rp.ServeHTTP(wr, r)
	}))
	defer srv.Close()
	r := run(t, "repair", "--yes", "--endpoint-url", srv.URL, "--table", w.table, "--audit-log", w.audit)
	if r.code != cli.ExitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0: every lock is there", r.code, r.stdout, r.stderr)
	}
	for i := range locks {
		want := fmt.Sprintf("skipped   already repaired: UNIQ#HANDLE#k%d now has owner ACCT#k%04d (another writer repaired it)\n", i, i)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q; want %q", r.stdout, want)
		}
	}
	if c := w.run("check"); c.code != cli.ExitOK {
		t.Fatalf("check after: exit %d, %s", c.code, c.stdout)
	}
}

// TestConcurrentRepairsBothSucceed: two repair --yes at once on a table of
// 150 missing locks. Whichever loses a lock to the other skips it as
// already repaired; both exit 0, and the table is clean.
func TestConcurrentRepairsBothSucceed(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	missingLocks(t, w, 150)
	var rs [2]result
	var wg sync.WaitGroup
	for i := range rs {
		wg.Go(func() { rs[i] = w.run("repair", "--yes", "--json") })
	}
	wg.Wait()
	skipped := 0
	for i, r := range rs {
		if r.code != cli.ExitOK {
			t.Errorf("repair %d: exit %d, stderr %q, stdout:\n%s", i, r.code, r.stderr, r.stdout)
		}
		for _, o := range outcomes(t, r.stdout) {
			switch {
			case o.Outcome == "committed":
			case o.Outcome == "skipped" && strings.HasPrefix(o.Note, "already repaired: UNIQ#HANDLE#k") && len(o.Reasons) == 0:
				skipped++
			default:
				t.Errorf("repair %d: %+v", i, o)
			}
		}
	}
	if c := w.run("check"); c.code != cli.ExitOK {
		t.Fatalf("check after: exit %d, %s", c.code, c.stdout)
	}
	t.Logf("%d repairs skipped as already repaired", skipped)
}
