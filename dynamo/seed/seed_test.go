package seed_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// TestSeedReservationsAtTheStoresClock: on tables whose locks have a TTL
// attribute, seed's reservation cases (a live reservation, an expired
// lock nobody holds, a lapsed lock its account holds, a reservation its
// account outlives) write their TTLs relative to the store's clock, so
// that a check at that clock finds each of them, whatever day the machine
// says it is. In both layouts, at each clocktest clock.
func TestSeedReservationsAtTheStoresClock(t *testing.T) {
	t.Parallel()
	const accounts = 3
	k := seed.AnomaliesPerKind(accounts)
	clocktest.Each(t, func(t *testing.T, at time.Time) {
		for _, l := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
			t.Run(string(l), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				store, client := dynamotest.TTLStoreAt(t, l, at)
				if _, err := seed.Run(ctx, store, seed.Options{Accounts: accounts, Anomalies: true}); err != nil {
					t.Fatal(err)
				}

				// Each reservation case writes one TTL, within hours of the
				// store's clock.
				ttls := 0
				for _, table := range store.Schema.Tables() {
					attr := store.Schema.TTLAttrOf(table)
					for _, it := range scan(t, client, table) {
						if _, ok := it[attr]; !ok {
							continue
						}
						ttls++
						ttl, err := strconv.ParseInt(it[attr].S, 10, 64)
						if err != nil || it[attr].Kind != model.KindN {
							t.Errorf("%s: %s %v is not a number", table, attr, it[attr])
							continue
						}
						if d := time.Unix(ttl, 0).Sub(at); d < -24*time.Hour || d > 24*time.Hour {
							t.Errorf("%s: %s %s (%s) is %s from the store's clock %s, want within a day", table, attr,
								it[attr].S, model.TTLTime(ttl), d, at)
						}
					}
				}
				if want := 4 * k; ttls != want {
					t.Errorf("%d items with a TTL, want %d (four reservation cases, %d times)", ttls, want, k)
				}

				report, err := store.Checker.Check(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if report.Now != at.Unix() {
					t.Errorf("the check judged at %d, want the store's clock %d", report.Now, at.Unix())
				}
				counts := report.Counts()
				// Per round: the expired lock nobody holds and the lapsed one
				// its account holds; the reservation its account outlives; the
				// live reservation, which is no problem.
				if counts[model.ExpiredLock] != 2*k || counts[model.ExpiringLock] != k || report.Reservations != k {
					t.Errorf("%d expired_lock, %d expiring_lock, %d reservations; want %d, %d, %d (all: %v)", counts[model.ExpiredLock],
						counts[model.ExpiringLock], report.Reservations, 2*k, k, k, counts)
				}
			})
		}
	})
}

// scan reads every item of table as it is.
func scan(t *testing.T, client *dynamodb.Client, table string) []model.Item {
	t.Helper()
	var items []model.Item
	pages := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		for _, it := range page.Items {
			items = append(items, dynamo.ItemFromSDK(it))
		}
	}
	return items
}
