package model

// Outcome is how a transaction ended.
type Outcome string

// The outcomes of a write.
const (
	Committed Outcome = "committed"
	Cancelled Outcome = "cancelled" // not committed: a condition failed, or settled as not committed
	Unknown   Outcome = "unknown"   // no answer, and the keys do not settle it
	Skipped   Outcome = "skipped"   // nothing sent or applied: left to a person, or already done by another writer
	// The outcomes below come with an error: nothing was written, and the
	// command reports why.
	Refused  Outcome = "refused"  // locktable refused it: read-only, the write guard
	NotSent  Outcome = "not_sent" // no request left the process: no connection, no credentials, interrupted first
	Rejected Outcome = "rejected" // DynamoDB answered with an error (validation, access, a missing table)
)

// Reason is one slot of a cancelled transaction, in words.
type Reason struct {
	Slot    int    `json:"slot"`
	Action  string `json:"action"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result is what happened to one planned transaction.
type Result struct {
	Operation string   `json:"operation"`
	Keys      []string `json:"keys"`
	Outcome   Outcome  `json:"outcome"`
	Token     string   `json:"token"`
	Reasons   []Reason `json:"reasons"`
	Note      string   `json:"note,omitempty"`
}
