package cli_test

import "testing"

// TestNoAccountIsEscapedOnce: an account key with a control character, a
// line separator and a tag character is named in the error as a person
// reads it, each escape written once.
func TestNoAccountIsEscapedOnce(t *testing.T) {
	t.Parallel()
	r := run(t, "delete", "ACCT#\x1bx y\u2028\U000E0041", "--demo", "--dry-run")
	wantError(t, r, 2, `no account "ACCT#\x1bx y\u2028\U000e0041" in table "accounts"`)
}
