package dynamo

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/logging"
	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/redact"
)

// ClientOptions say where DynamoDB is and who we are there.
type ClientOptions struct {
	EndpointURL string // --endpoint-url; empty: the SDK's environment, then AWS
	Region      string
	Profile     string
	// Log receives the SDK's log lines; nil discards them. They must never
	// reach the terminal: the TUI owns it and check's stdout is a contract.
	Log io.Writer
	// Demo marks the embedded minidyn backend, which omits response checksums.
	Demo bool
}

// endpointURL returns the endpoint the client will use: the flag, else the
// SDK's own environment variables, which it would honour anyway; naming it
// here lets the write guard and messages see it.
func endpointURL(flag string) string {
	for _, u := range []string{flag, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), os.Getenv("AWS_ENDPOINT_URL")} {
		if u != "" {
			return u
		}
	}
	return ""
}

// NewClient builds a DynamoDB client from the default credential chain and
// the options. Against a loopback endpoint it needs no AWS setup: the region
// defaults to us-east-1 and, when no credentials are configured, static
// dummy ones are used, as local emulators accept any.
func NewClient(ctx context.Context, o ClientOptions) (*dynamodb.Client, backend.Endpoint, error) {
	c, err := Connect(ctx, o)
	if err != nil {
		return nil, c.Endpoint(), err
	}
	return c.DynamoDB(), c.Endpoint(), nil
}

// Connection is the AWS configuration loaded for one endpoint, which the
// DynamoDB client and the DynamoDB Streams client are both built from:
// the same credentials, region, endpoint, retryer and log.
type Connection struct {
	cfg  aws.Config
	ep   backend.Endpoint
	demo bool
}

// Endpoint is where the connection's clients go.
func (c *Connection) Endpoint() backend.Endpoint { return c.ep }

// Config is the AWS configuration loaded, for the clients of other
// services (a topic, a queue) with the same credentials and region; its
// endpoint is AWS's, whatever the endpoint URL.
func (c *Connection) Config() aws.Config { return c.cfg }

// DynamoDB builds the connection's DynamoDB client.
func (c *Connection) DynamoDB() *dynamodb.Client {
	return dynamodb.NewFromConfig(c.cfg, func(do *dynamodb.Options) {
		if c.ep.URL != "" {
			do.BaseEndpoint = aws.String(c.ep.URL)
		}
		do.DisableValidateResponseChecksum = c.demo
	})
}

// Streams builds the connection's DynamoDB Streams client. Against an
// endpoint URL (an emulator) it goes where the DynamoDB client goes, which
// serves both APIs; on AWS to the region's streams endpoint.
func (c *Connection) Streams() *dynamodbstreams.Client {
	return dynamodbstreams.NewFromConfig(c.cfg, func(so *dynamodbstreams.Options) {
		if c.ep.URL != "" {
			so.BaseEndpoint = aws.String(c.ep.URL)
		}
	})
}

// Connect loads the AWS configuration for the options (see NewClient).
// On an error, its Endpoint still says where it was to go.
func Connect(ctx context.Context, o ClientOptions) (*Connection, error) {
	ep := backend.Endpoint{URL: endpointURL(o.EndpointURL), Profile: o.Profile, Demo: o.Demo}
	c := &Connection{ep: ep, demo: o.Demo}
	if ep.URL != "" {
		u, err := url.Parse(ep.URL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return c, fmt.Errorf("endpoint %q is not a URL like http://localhost:8000", ep.URL)
		}
		c.ep.Loopback = backend.IsLoopback(ep.URL)
	}
	redact.RememberEnvironment()
	cfg, err := loadConfig(ctx, tlsFree(c.ep.URL, o.Profile), c.loadOptions(o)...)
	if err != nil {
		return c, fmt.Errorf("load AWS configuration: %w", err)
	}
	rememberConfigured(cfg.ConfigSources)
	if c.ep.Loopback {
		if cfg.Region == "" {
			cfg.Region = "us-east-1"
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := cfg.Credentials.Retrieve(rctx)
		cancel()
		if err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	if cfg.Region == "" {
		return c, fmt.Errorf("no AWS region: pass --region or set AWS_REGION (or use --endpoint-url for a local emulator)")
	}
	c.ep.Region = cfg.Region
	if cfg.Credentials != nil {
		cfg.Credentials = markCredentialErrors{cfg.Credentials}
	}
	c.cfg = cfg
	return c, nil
}

// loadOptions are the options the configuration is loaded with.
func (c *Connection) loadOptions(o ClientOptions) []func(*config.LoadOptions) error {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	opts := []func(*config.LoadOptions) error{
		config.WithLogger(logging.NewStandardLogger(log)),
		config.WithRetryer(func() aws.Retryer {
			// No client-side retry quota: local emulators drop a connection
			// now and then, and a long parallel scan must not run out of
			// retries because of it.
			return retry.NewStandard(func(so *retry.StandardOptions) {
				// Writes send one attempt each and retry on their own
				// (oneAttempt).
				so.MaxAttempts = 5
				so.RateLimiter = ratelimit.None
			})
		}),
	}
	if o.Log != nil {
		opts = append(opts, config.WithClientLogMode(aws.LogRetries))
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(o.Profile))
	}
	if c.ep.Loopback {
		// Never probe the EC2 metadata endpoint for a local emulator.
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	return opts
}

// rememberConfigured remembers the credentials of the environment and
// the shared files the configuration was loaded from.
func rememberConfigured(sources []any) {
	for _, src := range sources {
		switch c := src.(type) {
		case config.EnvConfig:
			rememberCredentials(c.Credentials)
		case *config.EnvConfig:
			rememberCredentials(c.Credentials)
		case config.SharedConfig:
			rememberCredentials(c.Credentials)
		case *config.SharedConfig:
			rememberCredentials(c.Credentials)
		}
	}
}

// CredentialsError is a failure to obtain credentials. The SDK reports it
// only in words ("get identity: get credentials: ..."), before any request
// is signed or sent; the marker below gives it a type explain can see.
type CredentialsError struct{ Err error }

func (e *CredentialsError) Error() string { return redact.String(e.Err.Error()) }
func (e *CredentialsError) Unwrap() error { return e.Err }

// markCredentialErrors wraps every error of a credentials provider in a
// *CredentialsError.
type markCredentialErrors struct{ aws.CredentialsProvider }

func (p markCredentialErrors) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := p.CredentialsProvider.Retrieve(ctx)
	if err != nil {
		return c, &CredentialsError{Err: err}
	}
	rememberCredentials(c)
	return c, nil
}

// ProviderSources keeps the SDK's user-agent record of where credentials
// came from.
func (p markCredentialErrors) ProviderSources() []aws.CredentialSource {
	if s, ok := p.CredentialsProvider.(aws.CredentialProviderSource); ok {
		return s.ProviderSources()
	}
	return nil
}

// rememberCredentials has redact hide the values of creds.
func rememberCredentials(creds aws.Credentials) {
	redact.Remember(creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken)
}
