package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/locktable/locktable/dynamo"
)

// Dir is a Source on the local file system: an export copied from S3
// (aws s3 sync s3://bucket/prefix DIR) keeps its layout.
type Dir struct{}

// List implements Source.
func (Dir) List(_ context.Context, dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
	}
	return names, nil
}

// Open implements Source.
func (Dir) Open(_ context.Context, p string) (io.ReadCloser, error) {
	return os.Open(filepath.FromSlash(p))
}

// Name implements Source.
func (Dir) Name(p string) string { return filepath.FromSlash(p) }

// S3API is the part of the S3 client that reading an export uses.
type S3API interface {
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

var _ S3API = (*s3.Client)(nil)

// S3 is a Source in an S3 bucket; paths are object keys.
type S3 struct {
	API    S3API
	Bucket string
}

// List implements Source: the objects and common prefixes under dir/.
func (b S3) List(ctx context.Context, dir string) ([]string, error) {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	if prefix == "/" {
		prefix = ""
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(b.Bucket), Prefix: aws.String(prefix), Delimiter: aws.String("/")}
	var names []string
	for {
		out, err := b.API.ListObjectsV2(ctx, in)
		if err != nil {
			return nil, b.explain(err, "list", prefix)
		}
		for _, p := range out.CommonPrefixes {
			names = append(names, strings.TrimPrefix(aws.ToString(p.Prefix), prefix))
		}
		for _, o := range out.Contents {
			names = append(names, strings.TrimPrefix(aws.ToString(o.Key), prefix))
		}
		if !aws.ToBool(out.IsTruncated) {
			return names, nil
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}

// Open implements Source.
func (b S3) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	out, err := b.API.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Bucket), Key: aws.String(key)})
	if err != nil {
		return nil, b.explain(err, "get", key)
	}
	return out.Body, nil
}

// Name implements Source.
func (b S3) Name(key string) string { return "s3://" + b.Bucket + "/" + key }

func (b S3) explain(err error, op, key string) error {
	var noKey *types.NoSuchKey
	var noBucket *types.NoSuchBucket
	switch {
	case errors.As(err, &noKey):
		return fmt.Errorf("%s: %w", b.Name(key), fs.ErrNotExist)
	case errors.As(err, &noBucket):
		return fmt.Errorf("no bucket %s", b.Bucket)
	}
	return fmt.Errorf("%s %s: %w", op, b.Name(key), err)
}

// ParseLocation splits an --export location: s3://bucket/prefix, or a
// directory.
func ParseLocation(loc string) (bucket, p string, isS3 bool, err error) {
	rest, isS3 := strings.CutPrefix(loc, "s3://")
	if !isS3 {
		return "", filepath.ToSlash(loc), false, nil
	}
	bucket, p, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", true, fmt.Errorf("%q: want s3://BUCKET/PREFIX", loc)
	}
	return bucket, strings.TrimSuffix(p, "/"), true, nil
}

// S3EndpointURL returns the S3 endpoint to use: flag, else the SDK's
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; empty means AWS.
func S3EndpointURL(flag string) string {
	for _, u := range []string{flag, os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("AWS_ENDPOINT_URL")} {
		if u != "" {
			return u
		}
	}
	return ""
}

// NewS3Client builds an S3 client with the credentials, region, retries
// and logging DynamoDB gets from the same options (dynamo.NewClient: the
// default chain, --profile, --region; a loopback endpoint needs no AWS
// setup). endpoint, when not empty, is a local S3 (path-style requests).
func NewS3Client(ctx context.Context, o dynamo.ClientOptions, endpoint string) (*s3.Client, error) {
	o.EndpointURL = endpoint
	ddb, _, err := dynamo.NewClient(ctx, o)
	if err != nil {
		return nil, err
	}
	do := ddb.Options()
	return s3.New(s3.Options{
		Region:        do.Region,
		Credentials:   do.Credentials,
		HTTPClient:    do.HTTPClient,
		Retryer:       do.Retryer,
		Logger:        do.Logger,
		ClientLogMode: do.ClientLogMode,
		BaseEndpoint:  do.BaseEndpoint,
		UsePathStyle:  endpoint != "",
		// Data files are checked against the manifest's MD5; a local S3
		// may send no checksum, and the SDK would log a warning per object.
		ResponseChecksumValidation:                aws.ResponseChecksumValidationWhenRequired,
		DisableLogOutputChecksumValidationSkipped: true,
	}), nil
}
