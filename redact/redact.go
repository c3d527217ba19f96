// Package redact hides credentials in text before it is shown or
// written: the values this process has seen configured, and anything that
// looks like a secret key, session token, access key id or signature.
package redact

import (
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redacted stands where a credential value was.
const Redacted = "[redacted]"

// The SDK's error texts may quote credentials: a credential_process whose
// output is not valid JSON has the whole output in its error, keys and
// token included. These patterns find credential values in the forms they
// are written in: JSON and Go struct fields, INI files, environment
// variables, HTTP headers and signed query strings.
var (
	// A field naming a credential, then ':' or '=', then its value. The
	// value ends at white space, a quote, or a JSON or query separator;
	// JSON escapes (`\/`) inside it are kept in it.
	credentialField = regexp.MustCompile(`(?i)(\b(?:x-amz-|aws_?)?(?:secret[_-]?access[_-]?key|session[_-]?token|security[_-]?token|access[_-]?key[_-]?id|sso[_-]?bearer[_-]?token|access[_-]?token|refresh[_-]?token|client[_-]?secret)\b[\\"']*\s*[:=]\s*(?:\\?["'])?)(?:[^\s"'\\,;&}]|\\[^\s"'])+`)
	// SigV4: the Authorization header and presigned URLs.
	signature = regexp.MustCompile(`(?i)(\b(?:x-amz-)?(?:credential|signature)\s*=\s*)[^\s"',;&]+`)
	bearer    = regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`)
	// An access key id wherever it stands.
	accessKeyID = regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{12,}\b`)
)

// minSecretLen is the shortest configured value redacted literally: local
// emulators take any credentials ("local", "x"), and redacting such a word
// everywhere would garble messages without hiding a secret.
const minSecretLen = 8

// secrets holds the credential values this process has seen configured or
// retrieved. Credentials are process-wide (the environment, the shared
// files), and so is any error that may quote them.
var secrets struct {
	sync.RWMutex
	values   map[string]bool
	replacer *strings.Replacer
}

// Remember adds credential values to those String replaces wherever
// they appear.
func Remember(values ...string) {
	if known(values) {
		return // every request retrieves the credentials: the usual case
	}
	secrets.Lock()
	defer secrets.Unlock()
	added := false
	for _, v := range values {
		if len(v) >= minSecretLen && !secrets.values[v] {
			if secrets.values == nil {
				secrets.values = map[string]bool{}
			}
			secrets.values[v] = true
			added = true
		}
	}
	if !added {
		return
	}
	// Longest first, so that a value containing another is replaced whole.
	all := make([]string, 0, len(secrets.values))
	for v := range secrets.values {
		all = append(all, v)
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Redacted)
	}
	secrets.replacer = strings.NewReplacer(pairs...)
}

// known reports whether every value is remembered or too short to be.
func known(values []string) bool {
	secrets.RLock()
	defer secrets.RUnlock()
	for _, v := range values {
		if len(v) >= minSecretLen && !secrets.values[v] {
			return false
		}
	}
	return true
}

// RememberEnvironment remembers the credentials the environment sets.
func RememberEnvironment() {
	Remember(os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"),
		os.Getenv("AWS_SESSION_TOKEN"), os.Getenv("AWS_SECURITY_TOKEN"))
}

// String returns s with every credential value replaced by [redacted]: the
// values this process has seen configured, and anything that looks like a
// secret key, session token, access key id or request signature. Every
// error message and log line goes through it before it is shown or written.
func String(s string) string {
	secrets.RLock()
	r := secrets.replacer
	secrets.RUnlock()
	if r != nil {
		s = r.Replace(s)
	}
	s = credentialField.ReplaceAllString(s, "${1}"+Redacted)
	s = signature.ReplaceAllString(s, "${1}"+Redacted)
	s = bearer.ReplaceAllString(s, "${1}"+Redacted)
	return accessKeyID.ReplaceAllString(s, Redacted)
}

// Writer returns a writer that redacts (see String) what it passes
// to w. Each Write is redacted on its own: loggers write one line per call.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (r writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
