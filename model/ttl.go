package model

import (
	"fmt"
	"strconv"
	"time"
)

// The time-to-live side of the pattern (PATTERN.md, "Locks with a time to
// live"): DynamoDB deletes an item whose TTL attribute (epoch seconds,
// type N) has passed, but only eventually, typically within days. Until
// then the item is ordinary: a guarded put still fails on it. So an
// expired lock still blocks its value, and a lock with a TTL ahead is a
// reservation that ends by itself.

// maxTTL is the largest TTL taken as epoch seconds: a greater one (10^11
// seconds is the year 5138) is in milliseconds, which DynamoDB reads as
// seconds and so never expires; it is judged as no TTL, with a warning.
const maxTTL = 1e11

// MinTTL is the least TTL that is a time: 0 and below are no time after
// 1970 (and DynamoDB deletes nothing expired more than five years ago),
// so ReadTTL ignores them, and a guard takes no lock with one over.
const MinTTL = 1

// TTLState is what an item's TTL attribute says.
type TTLState uint8

// The states of a TTL attribute.
const (
	TTLNone    TTLState = iota // absent (or no TTL attribute configured): the item does not expire
	TTLAt                      // a number of epoch seconds: the item expires then
	TTLIgnored                 // present but not epoch seconds: DynamoDB ignores it, and so does the check
)

// ReadTTL reads TTL attribute attr of item it: its epoch seconds when
// TTLAt, and for TTLIgnored why DynamoDB ignores it.
func ReadTTL(it Item, attr string) (at int64, state TTLState, why string) {
	if attr == "" {
		return 0, TTLNone, ""
	}
	v, ok := it[attr]
	if !ok || v.Kind == KindNULL {
		return 0, TTLNone, ""
	}
	if v.Kind != KindN {
		return 0, TTLIgnored, fmt.Sprintf("%s is %s, not a number", attr, Printable(v.DynamoJSON()))
	}
	f, err := strconv.ParseFloat(v.S, 64)
	switch {
	case err != nil:
		return 0, TTLIgnored, fmt.Sprintf("%s is %s, not a number", attr, Printable(v.S))
	case f > maxTTL:
		return 0, TTLIgnored, fmt.Sprintf("%s is %s, which looks like milliseconds (DynamoDB reads epoch seconds, so it never expires)", attr, v.S)
	case f < MinTTL:
		// 0 and below: no time after the epoch (and DynamoDB deletes
		// nothing expired more than five years ago).
		return 0, TTLIgnored, fmt.Sprintf("%s is %s, not a time after 1970", attr, v.S)
	}
	return int64(f), TTLAt, ""
}

// Expired reports whether a TTL of at epoch seconds has passed at now:
// at is not after now (PATTERN.md: "not after now" is expired).
func Expired(at, now int64) bool { return at <= now }

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
	case Expired(at, now):
		return "expired " + Until(at, now) + " ago"
	}
	return "reserved " + Until(at, now) + " more"
}
