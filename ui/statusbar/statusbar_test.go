package statusbar_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/locktable/locktable/ui/statusbar"
	"github.com/locktable/locktable/ui/styles"
)

// TestStatusRedactsCredentials: an error quoting credentials (the SDK's
// text for a credential_process with bad output) shows without them.
func TestStatusRedactsCredentials(t *testing.T) {
	st := styles.New(true)
	err := errors.New(`get credentials: parse failed of process output: {"AccessKeyId":"AKIAEXAMPLE","SecretAccessKey":"s3cr3tV4lue","SessionToken":"t0k3nV4lue",`)
	got := statusbar.Status(&st, 1000, "", false, "", err)
	if !strings.Contains(got, "parse failed") {
		t.Fatalf("status %q does not show the error", got)
	}
	for _, secret := range []string{"AKIAEXAMPLE", "s3cr3tV4lue", "t0k3nV4lue"} {
		if strings.Contains(got, secret) {
			t.Errorf("status shows %s: %q", secret, got)
		}
	}
}
