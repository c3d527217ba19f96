package dynamotest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/locktable/locktable/model"
)

// TTLItems are layout-1 items, whose TTL attribute is ttl, holding one case
// of each TTL rule (PATTERN.md, "Locks with a time to live") with TTLs
// relative to now, in key order:
//
//	ACCT#ada    ada@x / ada        its email lock expired 3 h ago: expired_lock
//	ACCT#bob    bob@x / bob        its email lock reserved 1 h more, bob never expires: expiring_lock
//	ACCT#carol  carol@x / carol    its username lock's ttl is a string: a warning, judged as none
//	ACCT#clean  clean@x / clean    both locks clean
//	ACCT#trial  trial@x / trial    expires in 10 min, its email lock in 1 h: fine (reserved)
//	UNIQ#EMAIL#gone@x              expired 3 h ago, owner ACCT#gone, nobody holds it: expired_lock
//	UNIQ#EMAIL#pending@x           reserved 12 min 30 s more, no owner, nobody holds it: a reservation
func TTLItems(now time.Time) []model.Item {
	at := func(d time.Duration) model.Value { return model.N(strconv.FormatInt(now.Add(d).Unix(), 10)) }
	with := func(it model.Item, v model.Value) model.Item { it["ttl"] = v; return it }
	return []model.Item{
		Account("ACCT#ada", "ada@x", "ada"), with(Lock("UNIQ#EMAIL#ada@x", "ACCT#ada"), at(-3*time.Hour)), Lock("UNIQ#HANDLE#ada", "ACCT#ada"),
		Account("ACCT#bob", "bob@x", "bob"), with(Lock("UNIQ#EMAIL#bob@x", "ACCT#bob"), at(time.Hour)), Lock("UNIQ#HANDLE#bob", "ACCT#bob"),
		Account("ACCT#carol", "carol@x", "carol"), Lock("UNIQ#EMAIL#carol@x", "ACCT#carol"),
		with(Lock("UNIQ#HANDLE#carol", "ACCT#carol"), model.S("tomorrow")),
		Account("ACCT#clean", "clean@x", "clean"), Lock("UNIQ#EMAIL#clean@x", "ACCT#clean"), Lock("UNIQ#HANDLE#clean", "ACCT#clean"),
		with(Account("ACCT#trial", "trial@x", "trial"), at(10*time.Minute)),
		with(Lock("UNIQ#EMAIL#trial@x", "ACCT#trial"), at(time.Hour)), Lock("UNIQ#HANDLE#trial", "ACCT#trial"),
		with(Lock("UNIQ#EMAIL#gone@x", "ACCT#gone"), at(-3*time.Hour)),
		with(Lock("UNIQ#EMAIL#pending@x", ""), at(12*time.Minute+30*time.Second)),
	}
}

// WithTTL gives the tables of s TTL attributes, as --ttl-attr does: in
// layout 1 ttl (the locks' too, beside the accounts); in layout 2 each
// lock table its own (expires0, expires1, ...), unlike the account
// table's.
func WithTTL(s *model.Schema) {
	s.TTLAttr, s.TTLGiven = "ttl", true
	if s.Layout == model.LayoutTables {
		s.Constraints = append([]model.Constraint{}, s.Constraints...)
		for i := range s.Constraints {
			s.Constraints[i].TTLAttr = fmt.Sprintf("expires%d", i)
		}
	}
}
