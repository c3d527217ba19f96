package model

import "testing"

// TestReadTTL: epoch seconds are a TTL (a fraction dropped); anything
// DynamoDB would not expire by (not a number, milliseconds, no time after
// 1970) is ignored with why; absent, NULL or no attribute is none.
func TestReadTTL(t *testing.T) {
	tests := []struct {
		v     Value
		at    int64
		state TTLState
		why   string
	}{
		{N("1764600000"), 1764600000, TTLAt, ""},
		{N("1764600000.9"), 1764600000, TTLAt, ""},
		{N("1"), 1, TTLAt, ""},
		{N("1764600000000"), 0, TTLIgnored, "ttl is 1764600000000, which looks like milliseconds"},
		{N("0"), 0, TTLIgnored, "ttl is 0, not a time after 1970"},
		{N("-5"), 0, TTLIgnored, "not a time after 1970"},
		{S("1764600000"), 0, TTLIgnored, `ttl is {"S":"1764600000"}, not a number`},
		{Value{Kind: KindNULL}, 0, TTLNone, ""},
	}
	for _, tt := range tests {
		at, state, why := ReadTTL(Item{"ttl": tt.v}, "ttl")
		if at != tt.at || state != tt.state || (tt.why == "") != (why == "") || !contains(why, tt.why) {
			t.Errorf("%s: %d %d %q, want %d %d %q", tt.v.DynamoJSON(), at, state, why, tt.at, tt.state, tt.why)
		}
	}
	if _, state, _ := ReadTTL(Item{"ttl": N("5")}, ""); state != TTLNone {
		t.Errorf("no TTL attribute: state %d", state)
	}
	if _, state, _ := ReadTTL(Item{}, "ttl"); state != TTLNone {
		t.Errorf("absent: state %d", state)
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
