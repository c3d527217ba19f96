package dynamo

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestReadEstimates: what a read reserves under --max-rcu follows
// DynamoDB's pricing: 4 KB a unit, half for an eventually consistent
// read, twice for a transactional one; a page reads at most 1 MB, which is
// also the estimate of a page whose items' size is unknown.
func TestReadEstimates(t *testing.T) {
	var sizes tableCache
	sizes.put("small", &types.TableDescription{ItemCount: aws.Int64(10), TableSizeBytes: aws.Int64(10 * 400)})
	sizes.put("big", &types.TableDescription{ItemCount: aws.Int64(10), TableSizeBytes: aws.Int64(10 * 5000)})
	m := &meter{sizes: &sizes}
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"page of unknown items", m.pageUnits(aws.String("unknown"), aws.Int32(100), nil), 128},
		{"consistent page of unknown items", m.pageUnits(aws.String("unknown"), nil, aws.Bool(true)), 256},
		{"unlimited page of known items", m.pageUnits(aws.String("small"), nil, nil), 128},
		{"page of 100 known items", m.pageUnits(aws.String("small"), aws.Int32(100), nil), 5},    // 40,000 bytes: 10 units, halved
		{"page past 1 MB", m.pageUnits(aws.String("big"), aws.Int32(1000), aws.Bool(true)), 256}, // 5 MB asked, 1 MB read
		{"items rounded up each", m.getUnits("big", 3, true), 6},                                 // 5,000 bytes: 2 units each
		{"eventually consistent items", m.getUnits("small", 3, false), 1.5},
		{"unknown items", m.getUnits("unknown", 3, true), 256},
		{"many unknown items", m.getUnits("unknown", 300, false), 150},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v RCU, want %v", tc.name, tc.got, tc.want)
		}
	}
}
