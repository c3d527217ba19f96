package model

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The time-to-live side of the pattern (PATTERN.md, "Locks with a time to
// live"): DynamoDB deletes an item whose TTL attribute (epoch seconds,
// type N) has passed, but only eventually, typically within days. Until
// then the item is ordinary: a guarded put still fails on it. So an
// expired lock still blocks its value, and a lock with a TTL ahead is a
// reservation that ends by itself.

// MaxTTL is the largest TTL taken as epoch seconds: a greater one (10^11
// seconds is the year 5138) is in milliseconds, which DynamoDB reads as
// seconds and so never expires; it is judged as no TTL, with a warning.
// The SQL export writes it into its query, and --now refuses a greater
// time, so that all three draw the line at the same number.
const MaxTTL = 100_000_000_000

// Lease is what an item's TTL attribute says, before any clock: none, a
// time the item expires at, or a value DynamoDB ignores. The zero Lease
// is none.
type Lease struct {
	At    int64 // epoch seconds the item expires at, when Timed
	Timed bool
	// Ignored says why DynamoDB ignores the attribute (not a number, or in
	// milliseconds), "" when it does not: the item is judged as having no
	// TTL, and a check warns of it.
	Ignored string
}

// LeaseUntil is the lease of an item that expires at epoch second at.
func LeaseUntil(at int64) Lease { return Lease{At: at, Timed: true} }

// ReadLease reads TTL attribute attr of item it; attr "" (no TTL
// attribute configured) is none.
func ReadLease(it Item, attr string) Lease {
	if attr == "" {
		return Lease{}
	}
	v, ok := it[attr]
	if !ok || v.Kind == KindNULL {
		return Lease{}
	}
	if v.Kind != KindN {
		return Lease{Ignored: fmt.Sprintf("%s is %s, not a number", attr, Printable(v.DynamoJSON()))}
	}
	f, err := strconv.ParseFloat(v.S, 64)
	switch {
	case err != nil:
		return Lease{Ignored: fmt.Sprintf("%s is %s, not a number", attr, Printable(v.S))}
	case f > MaxTTL:
		return Lease{Ignored: fmt.Sprintf("%s is %s, which looks like milliseconds (DynamoDB reads epoch seconds, so it never expires)", attr, v.S)}
	}
	// Rounded up: a lock is expired once its TTL is not after now, as the
	// guard #ttl <= :now compares the number itself, so 100.5 is expired
	// from second 101 on, for the check as for the guard. 0 and below
	// are long past (and DynamoDB deletes nothing expired more than five
	// years ago: such a lock stays until a repair deletes it).
	return LeaseUntil(int64(math.Ceil(f)))
}

// TTLVerdict is what a lease says of its item at a clock reading. It is
// the one rule the check, the account and lock views, find, the holder
// lookup, the reasons a write gives and the terminal UI's cache judge
// TTLs by; the SQL export writes the same rule into its query.
type TTLVerdict uint8

// The verdicts of a lease at a clock reading.
const (
	TTLNone    TTLVerdict = iota // no TTL: the item lasts until deleted
	TTLIgnored                   // a TTL DynamoDB ignores (Lease.Ignored): it lasts, as without one
	TTLAhead                     // a TTL after now: the item is there until then (a lock is reserved)
	TTLExpired                   // a TTL not after now: expired, yet there until DynamoDB deletes it
)

// Verdict judges lease l at now, epoch seconds. A TTL not after now has
// passed (PATTERN.md), so a lease that ends this very second is expired,
// as the guard #ttl <= :now finds it.
func (l Lease) Verdict(now int64) TTLVerdict {
	switch {
	case l.Ignored != "":
		return TTLIgnored
	case !l.Timed:
		return TTLNone
	case l.At <= now:
		return TTLExpired
	}
	return TTLAhead
}

// Outlives reports whether an item of lease l outlives a lock of lease
// lock: it never expires (no TTL, or one DynamoDB ignores), or expires
// later. Then, when the lock goes, the value is unprotected.
func (l Lease) Outlives(lock Lease) bool { return !l.Timed || l.At > lock.At }

// TTLWarning says why an item's TTL attribute is ignored, naming the
// item, as a check reports it once per item.
func TTLWarning(table string, key map[string]string, why string) string {
	b, _ := marshal(key)
	return fmt.Sprintf("%s %s: %s; judged as having no TTL", Printable(table), Printable(string(b)), why)
}

// Epoch is t in epoch seconds, the unit of TTL attributes.
func Epoch(t time.Time) int64 { return t.Unix() }

// TTLTime is epoch second at as a person reads it, in UTC:
// "2026-12-01 23:20:00 UTC".
func TTLTime(at int64) string { return time.Unix(at, 0).UTC().Format("2006-01-02 15:04:05 UTC") }

// Until says how far epoch second at is from now in a person's words, the
// way the TUI and the report mark a lock: "12 min", "3 h", "2 days".
func Until(at, now int64) string {
	d := at - now
	if d < 0 {
		d = -d
	}
	switch {
	case d < 60:
		return fmt.Sprintf("%d s", d)
	case d < 3600:
		return fmt.Sprintf("%d min", d/60)
	case d < 2*86400:
		return fmt.Sprintf("%d h", d/3600)
	}
	return fmt.Sprintf("%d days", d/86400)
}

// TTLSaid says a lock's TTL at now as the report and the TUI mark it:
// "expired 3 h ago" or "reserved 12 min more".
func TTLSaid(at, now int64) string {
	switch {
	case at == now:
		return "expired just now"
	case LeaseUntil(at).Verdict(now) == TTLExpired:
		return "expired " + Until(at, now) + " ago"
	}
	return "reserved " + Until(at, now) + " more"
}
