package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/model"
)

// readTTL asks each table of the schema its TTL setting, once per store
// and unless the TTL attributes were given (--ttl-attr): a table whose
// TTL is ENABLED (or being enabled) has its attribute set in the schema.
// A backend without the operation (minidyn) has no TTL; any other refusal
// (a role without dynamodb:DescribeTimeToLive) is kept in TTLUnasked, for
// the check to say, and the table is judged without TTL. Whoever reads
// the schema's TTL attributes beside Verify (the terminal UI's first
// page) calls it first: the once orders the schema's change before them.
func (s *core) readTTL(ctx context.Context) {
	s.ttlOnce.Do(func() {
		if !s.Schema.TTLGiven {
			s.TTLUnasked, _ = s.askTTL(ctx, &s.Schema)
		}
	})
}

// askTTL fills in the TTL attribute of each table of sc that has none,
// from the table's own setting. It returns, per table it could not ask,
// why (unasked), and per table it asked, what it found (notes, for init).
func (s *core) askTTL(ctx context.Context, sc *model.Schema) (unasked, notes []string) {
	for _, table := range sc.Tables() {
		if sc.TTLAttrOf(table) != "" {
			continue
		}
		switch attr, err := s.describeTTL(ctx, table); {
		case err != nil && unknownOperation(err):
		case err != nil:
			unasked = append(unasked, fmt.Sprintf("%s: its TTL setting could not be read (%v): expired locks are judged as ordinary ones; pass --ttl-attr", table, err))
			notes = append(notes, fmt.Sprintf("TTL of %s: not read (%v); name it with --ttl-attr if its locks expire", table, err))
		case attr == "":
			notes = append(notes, fmt.Sprintf("TTL of %s: not enabled (DescribeTimeToLive)", table))
		default:
			_ = sc.SetTTLAttr(table, attr) // a table of sc, and the table's own attribute: never refused
			notes = append(notes, fmt.Sprintf("TTL of %s: attribute %s (DescribeTimeToLive: enabled): expired locks still block their values until DynamoDB deletes them", table, attr))
		}
	}
	return unasked, notes
}

// describeTTL returns table's TTL attribute, "" when TTL is not enabled.
func (s *core) describeTTL(ctx context.Context, table string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := s.api.DescribeTimeToLive(cctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		return "", err
	}
	d := out.TimeToLiveDescription
	if d == nil {
		return "", nil
	}
	switch d.TimeToLiveStatus {
	case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
		return aws.ToString(d.AttributeName), nil
	}
	return "", nil
}

// enableTTL turns TTL on for a table just created, on the schema's TTL
// attribute for it, so that the tables seed and the tests create expire
// as the schema says. A backend without TTL (minidyn) is left as it is:
// the schema's attribute still judges the locks.
func (s *Store) enableTTL(ctx context.Context, table string) error {
	attr := s.Schema.TTLAttrOf(table)
	if attr == "" {
		return nil
	}
	w, err := s.sender()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = w.UpdateTimeToLive(cctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)}})
	if err != nil && !unknownOperation(err) {
		return explain(err, "enable TTL on", table, s.Endpoint)
	}
	return nil
}

// ProposeTTL fills in the TTL attribute of each table of sc that has
// none, from the table's own TTL setting, for init's proposal; it returns
// a note per table it asked, saying what it found.
func (s *Store) ProposeTTL(ctx context.Context, sc *model.Schema) []string {
	_, notes := s.askTTL(ctx, sc)
	return notes
}
