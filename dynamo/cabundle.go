package dynamo

import (
	"context"
	"net/url"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// caBundleEnv names the certificates the SDK adds to its HTTPS trust
// (AWS_CA_BUNDLE). It parses every one of them as it loads the
// configuration: 2.6 ms for a system bundle on this project's machine
// (BenchmarkLoadConfig), against 10 µs without it.
const caBundleEnv = "AWS_CA_BUNDLE"

// envMu keeps the configuration's loads one at a time: loadConfig hides
// caBundleEnv from one while another could be reading it.
var envMu sync.Mutex

// loadConfig is config.LoadDefaultConfig, without reading the
// certificates of AWS_CA_BUNDLE when the client it configures can make
// no TLS connection (tlsFree): they would verify nothing.
func loadConfig(ctx context.Context, tlsFree bool, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	envMu.Lock()
	defer envMu.Unlock()
	if bundle, set := os.LookupEnv(caBundleEnv); set && tlsFree {
		// The SDK reads the variable while it loads and offers no
		// option to leave it out.
		os.Unsetenv(caBundleEnv)
		defer os.Setenv(caBundleEnv, bundle)
	}
	return config.LoadDefaultConfig(ctx, opts...)
}

// tlsFree reports whether a client of endpoint, loaded with profile, can
// make no TLS connection: the endpoint is plain http, and the credentials
// are the environment's keys, which the SDK takes before anything that
// asks a service (SSO, STS, a web identity) when no profile is named.
func tlsFree(endpoint, profile string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		return false
	}
	if profile != "" || os.Getenv("AWS_PROFILE") != "" {
		return false
	}
	return os.Getenv("AWS_ACCESS_KEY_ID") != "" && os.Getenv("AWS_SECRET_ACCESS_KEY") != ""
}
