package model

import "testing"

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
