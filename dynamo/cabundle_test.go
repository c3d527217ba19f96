package dynamo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
)

// TestPlainHTTPLeavesTheCABundleUnread: the SDK parses every certificate
// of AWS_CA_BUNDLE as it loads its configuration, before the first
// request (BenchmarkLoadConfig). A plain-http endpoint reached with the environment's
// keys makes no TLS connection, so the bundle is not read (a bundle that
// does not parse shows it); wherever TLS may be used, it still is, and
// the variable is left as it was.
func TestPlainHTTPLeavesTheCABundleUnread(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle.pem")
	if err := os.WriteFile(bundle, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	profiles := filepath.Join(dir, "config")
	if err := os.WriteFile(profiles, []byte("[profile dev]\nregion = us-east-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", profiles)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	t.Setenv("AWS_PROFILE", "")
	t.Setenv(caBundleEnv, bundle)
	keys := func() {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDLOCAL")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	}
	for _, c := range []struct {
		name, endpoint, profile string
		keys, readsBundle       bool
	}{
		{"plain http, keys in the environment", "http://127.0.0.1:8000", "", true, false},
		{"https", "https://dynamodb.example.com", "", true, true},
		{"a profile named", "http://127.0.0.1:8000", "dev", true, true},
		{"no keys in the environment", "http://127.0.0.1:8000", "", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.keys {
				keys()
			} else {
				t.Setenv("AWS_ACCESS_KEY_ID", "")
				t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			}
			_, _, err := NewClient(context.Background(), ClientOptions{EndpointURL: c.endpoint, Region: "us-east-1", Profile: c.profile})
			read := err != nil && strings.Contains(err.Error(), "CA bundle")
			if read != c.readsBundle {
				t.Errorf("the CA bundle read: %v, want %v (err %v)", read, c.readsBundle, err)
			}
			if got := os.Getenv(caBundleEnv); got != bundle {
				t.Errorf("%s is %q after the load, want %q", caBundleEnv, got, bundle)
			}
		})
	}
}

// BenchmarkLoadConfig is what caBundleEnv costs: the configuration of a
// plain-http endpoint loaded with the system's bundle in AWS_CA_BUNDLE
// (read: an https endpoint) and without reading it (skipped: loadConfig
// leaves it unread). docs/performance.md cites it:
//
//	go test ./dynamo -run '^$' -bench BenchmarkLoadConfig
func BenchmarkLoadConfig(b *testing.B) {
	const system = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(system); err != nil {
		b.Skipf("no system bundle here: %v", err)
	}
	b.Setenv(caBundleEnv, system)
	b.Setenv("AWS_ACCESS_KEY_ID", "AKIDLOCAL")
	b.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	b.Setenv("AWS_PROFILE", "")
	for _, c := range []struct {
		name    string
		tlsFree bool
	}{{"read", false}, {"skipped", true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := loadConfig(context.Background(), c.tlsFree, config.WithRegion("us-east-1")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
