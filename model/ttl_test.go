package model

import "testing"

// TestReadLease: a number of epoch seconds is a TTL (a fraction rounded
// up, 0 and below long past); one DynamoDB would not expire by (not a
// number, milliseconds) is ignored with why; absent, NULL or no
// attribute is none.
func TestReadLease(t *testing.T) {
	tests := []struct {
		v   Value
		at  int64
		ttl TTLVerdict // at 0
		why string
	}{
		{N("1764600000"), 1764600000, TTLAhead, ""},
		{N("1764600000.2"), 1764600001, TTLAhead, ""}, // expired from the second after, as #ttl <= :now compares it
		{N("1"), 1, TTLAhead, ""},
		{N("1764600000000"), 0, TTLIgnored, "ttl is 1764600000000, which looks like milliseconds"},
		{N("100000000000"), 100000000000, TTLAhead, ""}, // MaxTTL itself is seconds
		{N("0"), 0, TTLExpired, ""},                     // long past: expired
		{N("-5"), -5, TTLExpired, ""},
		{S("1764600000"), 0, TTLIgnored, `ttl is {"S":"1764600000"}, not a number`},
		{Value{Kind: KindNULL}, 0, TTLNone, ""},
	}
	for _, tt := range tests {
		l := ReadLease(Item{"ttl": tt.v}, "ttl")
		if l.At != tt.at || l.Verdict(0) != tt.ttl || (tt.why == "") != (l.Ignored == "") || !contains(l.Ignored, tt.why) {
			t.Errorf("%s: %+v (%d at 0), want %d %d %q", tt.v.DynamoJSON(), l, l.Verdict(0), tt.at, tt.ttl, tt.why)
		}
	}
	if l := ReadLease(Item{"ttl": N("5")}, ""); l != (Lease{}) {
		t.Errorf("no TTL attribute: %+v", l)
	}
	if l := ReadLease(Item{}, "ttl"); l != (Lease{}) {
		t.Errorf("absent: %+v", l)
	}
}

// TestLeaseVerdict: a lease is expired once its time is not after now,
// ahead before; none and an ignored TTL never expire; a lease outlives a
// lock's (ending a minute after now) when it never expires or expires
// later; a view keeps a lease as ExpiresAt and reads back its verdict.
func TestLeaseVerdict(t *testing.T) {
	const now = 1_764_600_000
	for _, tt := range []struct {
		name     string
		l        Lease
		want     TTLVerdict
		outlives bool
	}{
		{"none", Lease{}, TTLNone, true},
		{"ignored", Lease{Ignored: "ttl is 1764600000000, which looks like milliseconds"}, TTLIgnored, true},
		{"an hour past", LeaseUntil(now - 3600), TTLExpired, false},
		{"this second", LeaseUntil(now), TTLExpired, false},
		{"the next second", LeaseUntil(now + 1), TTLAhead, false},
		{"with the lock", LeaseUntil(now + 60), TTLAhead, false},
		{"after the lock", LeaseUntil(now + 61), TTLAhead, true},
		{"long past", LeaseUntil(0), TTLExpired, false},
		{"before 1970", LeaseUntil(-5), TTLExpired, false},
	} {
		if got := tt.l.Verdict(now); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
		if got := tt.l.Outlives(LeaseUntil(now + 60)); got != tt.outlives {
			t.Errorf("%s outlives a lock ending at now+60: %v, want %v", tt.name, got, tt.outlives)
		}
		kept := KeptLease(tt.l.ExpiresAt())
		if got := kept.Verdict(now); got != tt.want && (tt.want != TTLIgnored || got != TTLNone) {
			t.Errorf("%s, kept as %d: %d, want %d", tt.name, tt.l.ExpiresAt(), got, tt.want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestTTLSaid: the words a lock's TTL is marked with, past and ahead.
func TestTTLSaid(t *testing.T) {
	now := int64(1_764_600_000)
	for _, tt := range []struct {
		at   int64
		want string
	}{
		{now - 3*3600 - 20, "expired 3 h ago"},
		{now, "expired just now"},
		{now + 12*60 + 5, "reserved 12 min more"},
		{now + 45, "reserved 45 s more"},
		{now - 3*86400, "expired 3 days ago"},
	} {
		if got := TTLSaid(tt.at, now); got != tt.want {
			t.Errorf("TTLSaid(now%+d) = %q, want %q", tt.at-now, got, tt.want)
		}
	}
}
