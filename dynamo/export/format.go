// Package export reads and writes DynamoDB's full exports to S3 in the
// DYNAMODB_JSON format, the layout ExportTableToPointInTime writes:
//
//	PREFIX/AWSDynamoDB/<export-id>/manifest-summary.json
//	PREFIX/AWSDynamoDB/<export-id>/manifest-files.json   (one JSON object per data file, one a line)
//	PREFIX/AWSDynamoDB/<export-id>/data/<name>.json.gz   (one {"Item":{...}} a line, DynamoDB JSON)
//
// An export is a consistent snapshot of one table as of its export time,
// and reading it costs no read capacity. check --export reads it into a
// model.Census, and Query writes SQL that finds the same problems over it.
package export

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/locktable/locktable/model"
)

// Summary is an export's manifest-summary.json.
type Summary struct {
	Version            string    `json:"version"`
	ExportArn          string    `json:"exportArn"`
	StartTime          time.Time `json:"startTime"`
	EndTime            time.Time `json:"endTime"`
	TableArn           string    `json:"tableArn"`
	TableID            string    `json:"tableId"`
	ExportTime         time.Time `json:"exportTime"`
	S3Bucket           string    `json:"s3Bucket"`
	S3Prefix           *string   `json:"s3Prefix"`
	S3SseAlgorithm     string    `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string   `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string    `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64     `json:"billedSizeBytes"`
	ItemCount          int64     `json:"itemCount"`
	OutputFormat       string    `json:"outputFormat"`
	ExportType         string    `json:"exportType,omitempty"`
}

// Table returns the name of the exported table, from its ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME).
func (s Summary) Table() string {
	_, name, _ := strings.Cut(s.TableArn, ":table/")
	name, _, _ = strings.Cut(name, "/")
	return name
}

// DataFile is one line of manifest-files.json: a data file and how many
// items it holds.
type DataFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"` // base64 of the MD5 of the file's bytes
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// Names of the files an export holds, and the directory every export of a
// prefix lives under.
const (
	ExportsDir      = "AWSDynamoDB"
	SummaryFile     = "manifest-summary.json"
	FilesFile       = "manifest-files.json"
	formatJSON      = "DYNAMODB_JSON"
	fullExport      = "FULL_EXPORT"
	dataFileExt     = ".json.gz"
	manifestVersion = "2020-06-30"
)

// Options describe the export Write makes, as DynamoDB would describe it.
type Options struct {
	Table      string    // the exported table's name, for its ARN
	ExportTime time.Time // the snapshot's time; zero: now
	// Bucket and Prefix are the S3 location the manifests name; the data
	// file keys start with Prefix (an export read from elsewhere is
	// resolved relative to its own directory).
	Bucket, Prefix string
	// Files is how many data files the items are spread over, as DynamoDB
	// writes at least one per partition (0: one); some may stay empty.
	Files int
}

// Write writes items as a full DYNAMODB_JSON export of o.Table under dir
// (dir/AWSDynamoDB/<export-id>/...) and returns the export's directory.
// It is how tests make exports; the items are written in the order given,
// round-robin over the data files.
func Write(dir string, o Options, items []model.Item) (string, error) {
	if o.ExportTime.IsZero() {
		return "", errors.New("an export needs its time (Options.ExportTime)")
	}
	o.ExportTime = o.ExportTime.UTC().Truncate(time.Millisecond)
	files := max(o.Files, 1)
	id := fmt.Sprintf("%014d-%s", o.ExportTime.UnixMilli(), randomHex(4))
	exportDir := filepath.Join(dir, ExportsDir, id)
	if err := os.MkdirAll(filepath.Join(exportDir, "data"), 0o755); err != nil {
		return "", err
	}
	key := func(rel string) string {
		return strings.TrimPrefix(path.Join(o.Prefix, ExportsDir, id, rel), "/")
	}
	bufs := make([]bytes.Buffer, files)
	zws := make([]*gzip.Writer, files)
	counts := make([]int64, files)
	for i := range zws {
		zws[i] = gzip.NewWriter(&bufs[i])
	}
	for i, it := range items {
		line, err := json.Marshal(struct{ Item model.Item }{it})
		if err != nil {
			return "", fmt.Errorf("item %d: %w", i, err)
		}
		f := i % files
		zws[f].Write(append(line, '\n'))
		counts[f]++
	}
	var manifest bytes.Buffer
	for i, zw := range zws {
		if err := zw.Close(); err != nil {
			return "", err
		}
		name := randomHex(13) + dataFileExt
		if err := os.WriteFile(filepath.Join(exportDir, "data", name), bufs[i].Bytes(), 0o644); err != nil {
			return "", err
		}
		sum := md5.Sum(bufs[i].Bytes())
		line, _ := json.Marshal(DataFile{
			ItemCount: counts[i], MD5Checksum: base64.StdEncoding.EncodeToString(sum[:]),
			ETag: hex.EncodeToString(sum[:]), DataFileS3Key: key("data/" + name),
		})
		manifest.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(exportDir, FilesFile), manifest.Bytes(), 0o644); err != nil {
		return "", err
	}
	arn := "arn:aws:dynamodb:us-east-1:123456789012:table/" + o.Table
	var prefix *string
	if o.Prefix != "" {
		prefix = &o.Prefix
	}
	summary, _ := json.Marshal(Summary{
		Version: manifestVersion, ExportArn: arn + "/export/" + id,
		StartTime: o.ExportTime, EndTime: o.ExportTime.Add(time.Minute), ExportTime: o.ExportTime,
		TableArn: arn, TableID: randomHex(16), S3Bucket: o.Bucket, S3Prefix: prefix, S3SseAlgorithm: "AES256",
		ManifestFilesS3Key: key(FilesFile), ItemCount: int64(len(items)),
		OutputFormat: formatJSON, ExportType: fullExport,
	})
	if err := os.WriteFile(filepath.Join(exportDir, SummaryFile), summary, 0o644); err != nil {
		return "", err
	}
	// DynamoDB leaves an empty _started beside the manifests.
	if err := os.WriteFile(filepath.Join(exportDir, "_started"), nil, 0o644); err != nil {
		return "", err
	}
	return exportDir, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
