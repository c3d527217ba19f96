package redact_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/locktable/locktable/redact"
)

func TestRedactCredentialForms(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	const token = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ=="
	tests := []struct {
		name, in string
		keep     []string // what must survive
	}{
		{"process JSON, cut short", `parse failed of process output: {"Version":1,"AccessKeyId":"AKIAEXAMPLE","SecretAccessKey":"` + secret + `","SessionToken":"` + token + `",, error: unexpected end of JSON input`,
			[]string{`"SecretAccessKey":"[redacted]"`, `"AccessKeyId":"[redacted]"`, "unexpected end of JSON input"}},
		{"JSON, value cut short", `{"SecretAccessKey": "` + secret[:20], []string{`"SecretAccessKey": "[redacted]`}},
		{"JSON with escaped slashes", `{"SecretAccessKey":"` + strings.ReplaceAll(secret, "/", `\/`) + `"}`, []string{`"[redacted]"}`}},
		{"JSON quoted in an error", `output: "{\"SessionToken\":\"` + token + `\"}"`, []string{`\"SessionToken\":\"[redacted]\"}"`}},
		{"SSO JSON", `{"accessKeyId":"ASIAQWERTYUIOPASDFGH","secretAccessKey":"` + secret + `","sessionToken":"` + token + `"}`, nil},
		{"SSO token cache", `{"accessToken":"` + token + `","refreshToken":"` + token + `","clientSecret":"` + secret + `"}`, nil},
		{"INI", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + secret + "\naws_session_token=" + token + "\n",
			[]string{"aws_secret_access_key = [redacted]\n", "aws_session_token=[redacted]\n"}},
		{"environment", "AWS_SECRET_ACCESS_KEY=" + secret + " AWS_SESSION_TOKEN='" + token + "' AWS_SECURITY_TOKEN=" + token, nil},
		{"Go struct", "{AccessKeyID:AKIAIOSFODNN7EXAMPLE SecretAccessKey:" + secret + " SessionToken:" + token + " Source:}", nil},
		{"headers", "X-Amz-Security-Token: " + token + "\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + secret,
			[]string{"SignedHeaders=host;x-amz-date", "Credential=[redacted],", "Signature=[redacted]"}},
		{"presigned URL", "https://x/?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101&X-Amz-Security-Token=" + token + "&X-Amz-Signature=" + secret + "&X-Amz-Date=20260101", []string{"&X-Amz-Date=20260101"}},
		{"bearer", "Authorization: Bearer " + token, []string{"Bearer [redacted]"}},
		{"bare access key id", "the key ASIAQWERTYUIOPASDFGH was refused", []string{"the key [redacted] was refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redact.String(tt.in)
			for _, s := range []string{secret, token, secret[:20], strings.ReplaceAll(secret, "/", `\/`)[:30], "AKIAIOSFODNN7EXAMPLE", "ASIAQWERTYUIOPASDFGH", "AKIAEXAMPLE"} {
				if strings.Contains(got, s) {
					t.Errorf("Redact(%q) = %q: shows %q", tt.in, got, s)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("Redact(%q) = %q: want it to keep %q", tt.in, got, k)
				}
			}
		})
	}
}

func TestRedactLeavesOrdinaryMessages(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"credentials rejected by AWS us-east-1: UnrecognizedClientException: The security token included in the request is invalid.",
		"credential_process = /home/ada/bin/creds",
		`{"operation":"rename","token":"8c1f0e5a-2b1d-4c7e-9f3a-0d6b5e4c3a21","outcome":"unknown"}`,
		"cannot reach http://localhost:8000 (scan accounts): connection refused",
	} {
		if got := redact.String(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactingWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := redact.Writer(&b)
	line := `SDK DEBUG {"SecretAccessKey":"abcdefghijklmnop"}` + "\n"
	n, err := w.Write([]byte(line))
	if err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if got, want := b.String(), `SDK DEBUG {"SecretAccessKey":"[redacted]"}`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
