package model

import (
	"strings"
	"testing"
)

// An account named by its whole key (--account-sk =ID) is PK|SK. A
// partition key may hold | itself (an ElectroDB composite value such as
// designation "a|b"): the id then writes it \| (and \ as \\), so that
// every key has one id and every id one key.
func TestWholeKeyIDRoundTrips(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	s.PK, s.SK, s.AccountSK, s.AccountPrefix = "pk", "sk", KeyInID, ""
	for _, tt := range []struct{ pk, sk, id string }{
		{"$mi6#designation_00", "$agent_1#id_a3", "$mi6#designation_00|$agent_1#id_a3"},
		{"$mi6#designation_a|b", "$agent_1#id_a3", `$mi6#designation_a\|b|$agent_1#id_a3`},
		{`$mi6#back\slash`, "$agent_1#id_a|b", `$mi6#back\\slash|$agent_1#id_a|b`},
		{`x\|`, "|", `x\\\||` + "|"},
	} {
		it := Item{"pk": S(tt.pk), "sk": S(tt.sk)}
		id := s.AccountID(it)
		if id != tt.id {
			t.Errorf("AccountID(%q, %q) = %q, want %q", tt.pk, tt.sk, id, tt.id)
		}
		if k := s.AccountKey(id); k["pk"] != tt.pk || k["sk"] != tt.sk {
			t.Errorf("AccountKey(%q) = %v, want pk %q sk %q", id, k, tt.pk, tt.sk)
		}
		if err := (Planner{Schema: &s}).validateAccountID(id); err != nil {
			t.Errorf("validateAccountID(%q): %v", id, err)
		}
	}
	if k := s.AccountKey(`a\b|c`); k["pk"] != `a\b` || k["sk"] != "c" {
		t.Errorf("a lone \\ is kept as typed: %v", k)
	}
	for _, bad := range []string{`a\|b`, "|sk", "pk|"} {
		if err := (Planner{Schema: &s}).validateAccountID(bad); err == nil {
			t.Errorf("validateAccountID(%q): want an error (no whole key)", bad)
		}
	}
}

// An owner that is not a whole key (a repair's claim, or anything a
// writer left) names no account where accounts are named by their whole
// key: nothing is read or checked at a key with an empty sort key, which
// DynamoDB refuses.
func TestOwnerThatIsNoWholeKeyIsNotRead(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	s.PK, s.SK, s.AccountSK, s.AccountPrefix = "pk", "sk", KeyInID, ""
	s.Constraints = s.Constraints[:1]
	for _, owner := range []string{"locktable:reclaim:1", "ACCT#a1", "pk|"} {
		p := Classifier{Schema: &s}.LockProblem(OrphanLock, 0, "ada@x.io", owner)
		for _, ref := range (Classifier{Schema: &s}).Involved(p) {
			if ref.Key["pk"] == "" || ref.Key["sk"] == "" {
				t.Errorf("owner %q: Involved reads %v, a key DynamoDB refuses", owner, ref.Key)
			}
		}
		lock := Item{"pk": S("UNIQ#EMAIL#ada@x.io"), "sk": S("LOCK"), "owner": S(owner)}
		plan, err := Planner{Schema: &s}.RepairOrphan(p, lock, "locktable:reclaim:9")
		if err != nil {
			continue
		}
		for _, a := range plan.Actions {
			if a.Key["pk"] == "" || a.Key["sk"] == "" {
				t.Errorf("owner %q: the repair %s %v, a key DynamoDB refuses", owner, a.Kind, a.Key)
			}
		}
	}
}

// A new account's key, where accounts are named by their whole key, is
// one like theirs: the partition most of them share, and their sort
// keys' head with a fresh id ($agent_1#id_ then 12 hex digits), a whole
// key a signup takes.
func TestNewWholeKeyIsLikeTheOthers(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	s.PK, s.SK, s.AccountSK, s.AccountPrefix = "pk", "sk", KeyInID, ""
	ids := []string{"$mi6#designation_00|$agent_1#id_a1", "$mi6#designation_00|$agent_1#id_a2", "$mi6#designation_07|$agent_1#id_bond"}
	id := AccountIDs{Schema: &s}.NewLike(ids)
	pk, sk, ok := SplitWholeKeyID(id)
	if !ok || pk != "$mi6#designation_00" || !strings.HasPrefix(sk, "$agent_1#id_") || len(sk) != len("$agent_1#id_")+12 {
		t.Errorf("NewLike = %q, want $mi6#designation_00|$agent_1#id_ and 12 hex digits", id)
	}
	if err := (Planner{Schema: &s}).validateAccountID(id); err != nil {
		t.Errorf("the new key is refused: %v", err)
	}
}

// The write capacity a repair takes counts what Execute sends after the
// plan's own transaction: an ownerless orphan's claim (1 item) and its
// step 3 (1 item) take 4 units; a resumed one, whose plan is step 3, 2.
func TestReclaimWriteUnits(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	p := Classifier{Schema: &s}.LockProblem(OrphanLock, 0, "ghost@x.io", "")
	for _, tt := range []struct {
		resume bool
		want   float64
	}{{false, 4}, {true, 2}} {
		plan, err := Planner{Schema: &s}.Reclaim(p, "locktable:reclaim:1", tt.resume)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.WriteUnits(); got != tt.want {
			t.Errorf("resume %v: %v write units, want %v", tt.resume, got, tt.want)
		}
	}
}
