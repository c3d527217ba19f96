package dynamo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/redact"
)

// TestRedactConfiguredValues checks that credentials a client was built
// with are redacted wherever they appear, in whatever form.
func TestRedactConfiguredValues(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, []byte("[p]\naws_access_key_id = fileKeyId123\naws_secret_access_key = fileSecret!456\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "no-config"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envSecret!789")
	t.Setenv("AWS_SESSION_TOKEN", "envToken#0123")
	if _, _, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: "http://127.0.0.1:1", Profile: "p"}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"fileKeyId123", "fileSecret!456", "envSecret!789", "envToken#0123"} {
		if got := redact.String("why: (" + v + ")"); got != "why: ([redacted])" {
			t.Errorf("Redact of a configured value %q = %q", v, got)
		}
	}
	if got := redact.String("local"); got != "local" {
		t.Errorf("Redact(%q) = %q: short dummy values are not secrets", "local", got)
	}
}
