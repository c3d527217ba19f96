package model

import (
	"fmt"
	"runtime"
	"testing"
)

// feedHealthy adds n healthy accounts with their two locks to c, the way a
// check does: one item map reused for every item.
func feedHealthy(c *Census, n int) {
	scratch := Item{}
	for i := range n {
		id := fmt.Sprintf("ACCT#%08x", uint32(i)*2654435761)
		email, user := fmt.Sprintf("user.%d@example.org", i), fmt.Sprintf("user%d", i)
		clear(scratch)
		scratch["PK"], scratch["SK"], scratch["email"], scratch["username"] = S(id), S("PROFILE"), S(email), S(user)
		c.Add("accounts", scratch)
		for _, pk := range []string{"UNIQ#EMAIL#" + email, "UNIQ#HANDLE#" + user} {
			clear(scratch)
			scratch["PK"], scratch["SK"], scratch["owner"] = S(pk), S("LOCK"), S(id)
			c.Add("accounts", scratch)
		}
	}
}

// BenchmarkCensusMemory reports the heap a census keeps per account (with
// its two locks) at 10k and 100k accounts: what check's memory grows with.
func BenchmarkCensusMemory(b *testing.B) {
	s := DefaultSchema(LayoutSingle)
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var perAccount float64
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				c := NewCensus(&s, 0)
				feedHealthy(c, n)
				runtime.GC()
				runtime.ReadMemStats(&after)
				perAccount = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				if len(c.Problems()) != 0 {
					b.Fatal("problems in a healthy census")
				}
				runtime.KeepAlive(c)
			}
			b.ReportMetric(perAccount, "heap-B/account")
		})
	}
}
