package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/model"
)

// SeedOptions say what `locktable seed` writes.
type SeedOptions struct {
	Accounts  int  // healthy accounts, written through the pattern
	Anomalies bool // also plant problems the way buggy code would
	// Indexes creates the account table with a GSI per unique attribute,
	// named IndexName(attr), so that --index can confirm ownerless orphans
	// without a second scan.
	Indexes bool
	// Showcase adds what the demo shows beyond the four repairable kinds:
	// an invalid_value and an account whose text tries terminal escapes.
	Showcase bool
}

// MaxSeedAccounts is the most healthy accounts a seed writes. Sample
// accounts are numbered: ids and values are unique only while the numbers
// fit in 32 bits, and the renamed values the anomalies use (numbered from
// 1,000,000 past the accounts) stay clear of the planted accounts' own
// only up to about 30 million accounts.
const MaxSeedAccounts = 10_000_000

// SeedResult counts what a seed wrote.
type SeedResult struct {
	Created      []string // tables created
	Accounts     int      // healthy accounts written (already present ones count)
	AnomalyCases int      // planted cases, each one or more problems
}

// AnomaliesPerKind is how many cases of each problem kind a seed of n
// accounts plants: at least three (so that every variant appears), and
// about 1% of the accounts in problems for large tables.
func AnomaliesPerKind(n int) int { return max(3, n/250) }

// Seed creates the schema's tables if they are missing and writes
// deterministic accounts through the pattern; with Anomalies it then plants
// every kind of problem. The same options write the same items, and a
// second run adds nothing.
func (s *Store) Seed(ctx context.Context, o SeedOptions) (SeedResult, error) {
	var res SeedResult
	created, err := s.ensureTables(ctx, o.Indexes)
	if err != nil {
		return res, err
	}
	res.Created = created
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range o.Accounts {
		id, attrs := s.sampleAccount(i)
		g.Go(func() error { return s.signup(gctx, id, attrs, true) })
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Accounts = o.Accounts
	if o.Anomalies {
		n, next, err := s.plant(ctx, o.Accounts)
		res.AnomalyCases = n
		if err != nil {
			return res, err
		}
		if o.Showcase {
			if err := s.showcase(ctx, next); err != nil {
				return res, err
			}
			res.AnomalyCases += 2
		}
	}
	return res, nil
}

// sampleAccount returns the i-th deterministic account: its id and
// attributes, one plausible value per constraint.
func (s *Store) sampleAccount(i int) (id string, attrs map[string]string) {
	attrs = map[string]string{}
	for _, c := range s.Schema.Constraints {
		attrs[c.Attr] = sampleValue(c.Attr, i)
	}
	return sampleID(s.Schema.AccountPrefix, i), attrs
}

// sampleID spreads ids over the key space (a bijection on uint32, so ids
// never collide) the way random ids would be.
func sampleID(prefix string, i int) string {
	h := uint32(i) * 2654435761
	if prefix == "" {
		return fmt.Sprintf("dev-%08x", h)
	}
	return fmt.Sprintf("%s%08x", prefix, h)
}

var sampleNames = []string{
	"ada", "alan", "grace", "edsger", "barbara", "donald", "margaret", "ken",
	"dennis", "frances", "john", "radia", "tim", "linus", "katherine",
	"claude", "hedy", "niklaus", "leslie", "sophie",
}

// sampleValue makes a value for attribute attr of account i that looks like
// what the attribute holds, unique per i.
func sampleValue(attr string, i int) string {
	name := sampleNames[i%len(sampleNames)]
	a := strings.ToLower(attr)
	switch {
	case strings.Contains(a, "mail"):
		return fmt.Sprintf("%s.%d@example.org", name, i)
	case strings.Contains(a, "mac"):
		return fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
	case strings.Contains(a, "code"):
		return fmt.Sprintf("RC-%08X", uint32(i)*2246822519)
	}
	return fmt.Sprintf("%s%d", name, i)
}

// accountItem builds the account item for id with attributes.
func (s *Store) accountItem(id string, attrs map[string]string) map[string]types.AttributeValue {
	it := keyToSDK(s.Schema.AccountKey(id))
	for k, v := range attrs {
		it[k] = &types.AttributeValueMemberS{Value: v}
	}
	return it
}

// lockItem builds the lock item of constraint ci for value v, owned by
// owner when owner is not empty.
func (s *Store) lockItem(ci int, v, owner string) (table string, item map[string]types.AttributeValue) {
	table, key := s.Schema.LockKey(ci, s.Schema.Constraints[ci].Normalize.Apply(v))
	item = keyToSDK(key)
	if owner != "" {
		item[s.Schema.OwnerAttr] = &types.AttributeValueMemberS{Value: owner}
	}
	return table, item
}

// signup writes an account and its locks in one guarded transaction: the
// very plan `locktable signup` sends. withOwner says whether the locks name
// their owner (the article's locks do not). An account already there is
// left as it is.
func (s *Store) signup(ctx context.Context, id string, attrs map[string]string, withOwner bool) error {
	plan, err := s.Schema.Signup(id, attrs)
	if err != nil {
		return err
	}
	if !withOwner {
		for _, a := range plan.Actions {
			if a.Role == model.RoleTakeLock {
				delete(a.Item, s.Schema.OwnerAttr)
			}
		}
	}
	tx, err := s.Prepare(plan, NewToken())
	if err != nil {
		return err
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = w.TransactWriteItems(cctx, tx.Input)
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		return nil // already seeded: the guards kept it as it was
	}
	if err != nil {
		return explain(err, "seed", s.Schema.Table, s.Endpoint)
	}
	return nil
}

// put writes an item without any guard: how buggy code skips the pattern.
func (s *Store) put(ctx context.Context, table string, item map[string]types.AttributeValue) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := w.PutItem(cctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		return explain(err, "seed", table, s.Endpoint)
	}
	return nil
}

// putAccount writes the account alone, skipping the transaction and its
// locks, then the locks listed in withLocks (by constraint index) one by one.
func (s *Store) putAccount(ctx context.Context, id string, attrs map[string]string, withLocks ...int) error {
	if err := s.put(ctx, s.Schema.Table, s.accountItem(id, attrs)); err != nil {
		return err
	}
	for _, ci := range withLocks {
		table, lock := s.lockItem(ci, attrs[s.Schema.Constraints[ci].Attr], id)
		if err := s.put(ctx, table, lock); err != nil {
			return err
		}
	}
	return nil
}

// deleteAccount deletes the account item alone, leaving its locks: a
// delete that forgot them.
func (s *Store) deleteAccount(ctx context.Context, id string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = w.DeleteItem(cctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Schema.Table), Key: keyToSDK(s.Schema.AccountKey(id))})
	if err != nil {
		return explain(err, "seed", s.Schema.Table, s.Endpoint)
	}
	return nil
}

// plant writes the anomaly cases after the n healthy accounts, each with
// accounts of its own. It returns the number of cases planted and the next
// free account number.
func (s *Store) plant(ctx context.Context, n int) (int, int, error) {
	next := n
	account := func() (string, map[string]string) { next++; return s.sampleAccount(next - 1) }
	first := s.Schema.Constraints[0].Attr
	others := func() []int { // every constraint but the first
		var cis []int
		for ci := 1; ci < len(s.Schema.Constraints); ci++ {
			cis = append(cis, ci)
		}
		return cis
	}
	// leakyRename changes the first attribute of an account and locks the
	// new value, but never releases the old lock.
	leakyRename := func(id string, attrs map[string]string) error {
		attrs[first] = sampleValue(first, 1_000_000+next)
		next++
		return s.putAccount(ctx, id, attrs, 0)
	}
	k := AnomaliesPerKind(n)
	cases := 0
	for m := range k {
		steps := []func() error{
			// missing_lock: a signup that skipped the transaction.
			func() error { id, attrs := account(); return s.putAccount(ctx, id, attrs) },
			// orphan_lock, three ways buggy code leaves one.
			func() error {
				id, attrs := account()
				if err := s.signup(ctx, id, attrs, m%3 != 2); err != nil {
					return err
				}
				if m%3 == 0 {
					return leakyRename(id, attrs)
				}
				return s.deleteAccount(ctx, id) // a delete that left the locks
			},
			// foreign_lock: A renames away without releasing its lock, then B
			// takes the value with a write that skips the check.
			func() error {
				a, aAttrs := account()
				if err := s.signup(ctx, a, aAttrs, true); err != nil {
					return err
				}
				old := aAttrs[first]
				if err := leakyRename(a, aAttrs); err != nil {
					return err
				}
				b, bAttrs := account()
				bAttrs[first] = old
				return s.putAccount(ctx, b, bAttrs, others()...)
			},
			// duplicate_value: D copies C's value with a write that skips the
			// check; C keeps the lock.
			func() error {
				c, cAttrs := account()
				if err := s.signup(ctx, c, cAttrs, true); err != nil {
					return err
				}
				d, dAttrs := account()
				dAttrs[first] = cAttrs[first]
				return s.putAccount(ctx, d, dAttrs, others()...)
			},
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return cases, next, err
			}
			cases++
		}
	}
	return cases, next, nil
}

// showcase plants, from account number next on, an invalid_value (a client
// that wrote a number where a string belongs) and a healthy account whose
// text carries a terminal title escape and a bidi override, which the UI
// must show inert.
func (s *Store) showcase(ctx context.Context, next int) error {
	id, attrs := s.sampleAccount(next)
	item := s.accountItem(id, attrs)
	last := s.Schema.Constraints[len(s.Schema.Constraints)-1].Attr
	item[last] = &types.AttributeValueMemberN{Value: fmt.Sprint(next)}
	if err := s.put(ctx, s.Schema.Table, item); err != nil {
		return err
	}
	for ci := range len(s.Schema.Constraints) - 1 {
		table, lock := s.lockItem(ci, attrs[s.Schema.Constraints[ci].Attr], id)
		if err := s.put(ctx, table, lock); err != nil {
			return err
		}
	}
	// Written with its locks but without the transaction: Signup rightly
	// refuses control characters in new values.
	id, attrs = s.sampleAccount(next + 1)
	attrs[last] = "mallory\x1b]0;pwned\x07\u202eevil"
	all := make([]int, len(s.Schema.Constraints))
	for ci := range all {
		all[ci] = ci
	}
	return s.putAccount(ctx, id, attrs, all...)
}

// ensureTables creates each missing table of the schema (string keys,
// on-demand) and waits until it is active. It returns the tables created.
func (s *Store) ensureTables(ctx context.Context, indexes bool) ([]string, error) {
	var created []string
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	if s.Endpoint.Demo {
		// minidyn's table map is not safe for concurrent CreateTable
		// (seen: "concurrent map writes" with --demo --layout tables).
		g.SetLimit(1)
	}
	for _, table := range s.Schema.Tables() {
		g.Go(func() error {
			_, err := s.describe(gctx, table)
			var notFound *types.ResourceNotFoundException
			if err == nil || !errors.As(err, &notFound) {
				return err
			}
			if err := s.createTable(gctx, table, indexes && table == s.Schema.Table); err != nil {
				return err
			}
			mu.Lock()
			created = append(created, table)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return created, s.Verify(ctx)
}

// IndexName is the name seed --indexes gives the GSI of a unique attribute.
func IndexName(attr string) string { return "by-" + attr }

func (s *Store) createTable(ctx context.Context, table string, indexes bool) error {
	in := &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest}
	for _, k := range s.wantKeys(table) {
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(k.name), KeyType: k.role})
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(k.name), AttributeType: types.ScalarAttributeTypeS})
	}
	for _, c := range s.Schema.Constraints {
		if !indexes {
			break
		}
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(c.Attr), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(IndexName(c.Attr)),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(c.Attr), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		})
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := w.CreateTable(cctx, in); err != nil {
		return explain(err, "create table", table, s.Endpoint)
	}
	// Wait for ACTIVE. minidyn reports no status at all: treat that as active.
	for attempt := 1; ; attempt++ {
		desc, err := s.describe(ctx, table)
		if err != nil {
			return err
		}
		if desc.TableStatus == types.TableStatusActive || desc.TableStatus == "" {
			return nil
		}
		if attempt > 60 {
			return &Error{Msg: fmt.Sprintf("table %q at %s is still %s after a minute", table, s.Endpoint, desc.TableStatus)}
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}
