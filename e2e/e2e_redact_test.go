package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ECredentialSecretsNeverPrinted runs check with a profile whose
// credential_process prints cut-short JSON. The SDK's error quotes the
// output, keys and token included; neither stdout, stderr nor the
// --log-file may show them.
func TestE2ECredentialSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	proxy, env := proxied(t)
	home := t.TempDir()
	secrets := []string{"AKIAEXAMPLE", "s3cr3tV4lue", "t0k3nV4lue"}
	script := filepath.Join(home, "credentials.sh")
	writeFile(t, script, 0o700, `#!/bin/sh
printf '%s' '{"Version":1,"AccessKeyId":"AKIAEXAMPLE","SecretAccessKey":"s3cr3tV4lue","SessionToken":"t0k3nV4lue",'
`)
	config := filepath.Join(home, "config")
	writeFile(t, config, 0o600, "[profile p]\ncredential_process = "+script+"\n")
	env["HOME"], env["AWS_CONFIG_FILE"], env["AWS_SHARED_CREDENTIALS_FILE"] = home, config, filepath.Join(home, "no-credentials")
	env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_PROFILE"], env["AWS_DEFAULT_PROFILE"] = "", "", "", ""
	for _, where := range [][]string{
		{"--region", "us-east-1"}, // AWS itself
		{"--region", "us-east-1", "--endpoint-url", "http://dynamodb.invalid"},
	} {
		logFile := filepath.Join(t.TempDir(), "sdk.log")
		args := append([]string{"check", "--profile", "p", "--log-file", logFile}, where...)
		r := locktable(t, env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "no usable AWS credentials") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and no usable AWS credentials", where, r.code, r.stderr)
		}
		logged, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(logged), "SecretAccessKey") {
			t.Errorf("%v: the log does not show the failure the SDK logs (the test no longer reaches the log): %q", where, logged)
		}
		for _, secret := range secrets {
			for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "--log-file": string(logged)} {
				if strings.Contains(out, secret) {
					t.Errorf("%v: %s shows %s: %q", where, name, secret, out)
				}
			}
		}
	}
	if n := proxy.count(); n != 0 {
		t.Errorf("%d requests sent without credentials", n)
	}
}

func writeFile(t *testing.T, path string, mode os.FileMode, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
