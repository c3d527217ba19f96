package e2e

import (
	"strings"
	"testing"
)

// TestE2EBadNumbersAndNamesSendNothing gives each numeric flag a value
// out of its range and each name flag a name DynamoDB would reject (or a
// terminal would act on): each is a usage error naming the flag, exit 2,
// before any request is sent.
func TestE2EBadNumbersAndNamesSendNothing(t *testing.T) {
	t.Parallel()
	proxy, env := proxied(t)
	remote := []string{"--endpoint-url", "http://dynamodb.invalid", "--region", "us-east-1", "--write"}

	// The control: a valid check goes through the proxy.
	if r := locktable(t, env, append([]string{"check"}, remote...)...); r.code != 2 || proxy.count() == 0 {
		t.Fatalf("control check: exit %d, stderr %q, %d requests proxied; the proxy does not see the requests", r.code, r.stderr, proxy.count())
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		flag string
		args []string
	}{
		{"--page-size", []string{"check", "--page-size", "2147483648"}},
		{"--page-size", []string{"check", "--page-size", "4294967297"}},
		{"--page-size", []string{"check", "--page-size", "-1"}},
		{"--segments", []string{"check", "--segments", "1000001"}},
		{"--segments", []string{"check", "--segments", "4294967297"}},
		{"--segments", []string{"check", "--segments", "0"}},
		{"--accounts", []string{"seed", "--accounts", "4294967297"}},
		{"--accounts", []string{"seed", "--accounts", "-1"}},
		{"--set", []string{"signup", "--yes", "--set", "e\x1bmail=x@y.z"}},
		{"--set", []string{"signup", "--yes", "--set", "email\a=x@y.z"}},
		{"--set", []string{"signup", "--yes", "--set", "em\u202eail=x@y.z"}},
		{"--set", []string{"signup", "--yes", "--set", "em\xffail=x@y.z"}},
		{"--set", []string{"signup", "--yes", "--set", long(65536) + "=x"}},
		{"--set", []string{"rename", "ACCT#1", "--yes", "--set", "user\x7fname=x"}},
		{"--pk", []string{"check", "--pk", "P\x1bK"}},
		{"--pk", []string{"check", "--pk", long(256)}},
		{"--sk", []string{"check", "--sk", "S\tK"}},
		{"--owner-attr", []string{"check", "--owner-attr", "own\u200ber"}},
		{"--table", []string{"check", "--table", "ab"}},
		{"--table", []string{"check", "--table", "bad table"}},
		{"--table", []string{"check", "--table", long(256)}},
		{"--unique", []string{"check", "--unique", "e\x1bmail=UNIQ#EMAIL#"}},
		{"--unique", []string{"check", "--unique", "email=@bad\x1btable/Key"}},
		{"--unique", []string{"check", "--unique", "email=@locks/Ke\ay"}},
		{"--unique", []string{"check", "--unique", "email=@locks/" + long(256)}},
		{"--normalize", []string{"check", "--normalize", "e\x1bmail=lower"}},
		{"--index", []string{"check", "--index", "e\x1bmail=by-email"}},
		{"--index", []string{"check", "--index", "email=by"}},
		{"--index", []string{"check", "--index", "email=by\x1bemail"}},
	}
	for _, tt := range tests {
		before := proxy.count()
		r := locktable(t, env, append(tt.args, remote...)...)
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "locktable: "+tt.flag) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%.80q: exit %d, stdout %q, stderr %.200q; want 2 and one line naming %s", tt.args, r.code, r.stdout, r.stderr, tt.flag)
		}
		for _, raw := range []string{"\x1b", "\a", "\t", "\x7f", "\u202e", "\u200b"} {
			if strings.Contains(r.stderr, raw) {
				t.Errorf("%.80q: stderr holds raw %q", tt.args, raw)
			}
		}
		if n := proxy.count() - before; n != 0 {
			t.Errorf("%.80q: %d requests sent", tt.args, n)
		}
	}
}
