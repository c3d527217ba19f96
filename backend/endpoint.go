package backend

import (
	"net"
	"net/url"
	"strings"
)

// Endpoint describes where a client sends its requests, for headers,
// messages and the write guard.
type Endpoint struct {
	URL      string // empty for AWS's regional endpoint
	Region   string
	Profile  string
	Loopback bool // 127.0.0.0/8, ::1 or localhost
	Demo     bool
}

// String names the endpoint for messages: its URL, or the AWS region.
func (e Endpoint) String() string {
	switch {
	case e.Demo:
		return "the embedded demo (" + e.URL + ")"
	case e.URL != "":
		return e.URL
	}
	return "AWS " + e.Region
}

// IsLoopback reports whether a URL's host is a loopback address or
// localhost.
func IsLoopback(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Capabilities says which of the features locktable's writes rely on a
// backend has. Emulators differ: minidyn ignores ClientRequestToken and
// returns no ALL_OLD item; dynalite has no transactions at all.
type Capabilities struct {
	// Probed is false when nothing was asked: a read-only store sends no
	// write call, and AWS itself has every feature.
	Probed       bool
	Transactions bool // TransactWriteItems
	Tokens       bool // ClientRequestToken: a changed request under a used token is refused
	AllOld       bool // ReturnValuesOnConditionCheckFailure=ALL_OLD returns the item
	// Segments: a parallel scan's Segment and TotalSegments are honoured
	// (minidyn returns the whole table to each segment).
	Segments bool
	// Comparisons: a filter comparing an attribute with a value of
	// another type is false for that item, as in DynamoDB (minidyn fails
	// the whole scan).
	Comparisons bool
}

// Every is what AWS itself can do: every capability, none probed.
func Every() Capabilities {
	return Capabilities{Transactions: true, Tokens: true, AllOld: true, Segments: true, Comparisons: true}
}

// Missing says in words what the backend lacks and what that changes, one
// line each; nothing when it lacks nothing.
func (c Capabilities) Missing() []string {
	var out []string
	if !c.Transactions {
		return []string{"no transactions (TransactWriteItems): writes are disabled, locktable only reads"}
	}
	if !c.Tokens {
		out = append(out, "no idempotency tokens (ClientRequestToken is ignored): a write whose answer is lost is settled by reading its keys, never by a resend alone")
	}
	if !c.AllOld {
		out = append(out, "no ALL_OLD items on a failed condition: each failed slot is explained from a consistent read of its key")
	}
	if !c.Segments {
		out = append(out, "no parallel scan (Segment is ignored): every scan reads with one segment")
	}
	if !c.Comparisons {
		out = append(out, "no mixed-type comparisons (a filter comparing values of different types fails the scan): scans for holders filter on attribute_exists only")
	}
	return out
}
