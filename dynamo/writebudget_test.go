package dynamo

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestWriteUnits: a transaction costs 2 write capacity units for each
// item it writes (put, update, delete); a condition check writes none.
func TestWriteUnits(t *testing.T) {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{}}, {ConditionCheck: &types.ConditionCheck{}}, {Put: &types.Put{}}, {Update: &types.Update{}},
	}}
	if got := writeUnits(in); got != 6 {
		t.Errorf("delete, check, put, update: %v WCU, want 6", got)
	}
}

// TestWriteBudgetPaces: under --max-wcu 2, a transaction that writes one
// item (2 WCU) goes at once, the next owes a second of the budget's
// clock, and goes once that second has passed; nothing is taken while it
// owes. The clock is the budget's, moved by hand.
func TestWriteBudgetPaces(t *testing.T) {
	var now time.Duration
	b := newBudget(2)
	b.elapsed = func() time.Duration { return now }
	if wait, _ := b.owe(2); wait != 0 {
		t.Fatalf("the first transaction waits %v, want none (one second's burst)", wait)
	}
	if wait, _ := b.owe(2); wait != time.Second {
		t.Fatalf("the second owes %v, want 1s at 2 WCU/s", wait)
	}
	now = 500 * time.Millisecond
	if wait, _ := b.owe(2); wait != 500*time.Millisecond {
		t.Fatalf("half a second on, the second owes %v, want 500ms", wait)
	}
	now = time.Second
	if wait, _ := b.owe(2); wait != 0 {
		t.Fatalf("a second on, the second still waits %v", wait)
	}
}

// TestPacedWriteInterruptedIsNotSent: a transaction whose wait for the
// budget is interrupted never reaches the client, and says so (judged
// not sent, so Execute does not settle a write that never left).
func TestPacedWriteInterruptedIsNotSent(t *testing.T) {
	m := &meter{}
	m.setWriteBudget(2)
	m.writes.elapsed = func() time.Duration { return 0 }
	m.writes.tokens = 0 // the burst is spent, and the clock stands still
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{}}}})
	if err == nil || judge(err) != vNotSent {
		t.Fatalf("interrupted while paced: %v, judged %v; want not sent", err, judge(err))
	}
}
