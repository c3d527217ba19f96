package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

func TestZZPhases(t *testing.T) {
	b := &testing.B{}
	_ = b
	client, ep := dynamotest.Client(t)
	schema := model.DefaultSchema(model.LayoutSingle)
	schema.Table = "bench-accounts"
	for range 3 {
		store, err := dynamo.Open(context.Background(), client, ep, schema)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		last := start
		var phase dynamo.CheckPhase = "scan"
		var out []string
		_, err = store.Check(context.Background(), func(p dynamo.CheckProgress) {
			if p.Phase != phase {
				out = append(out, string(phase)+"="+time.Since(last).Round(time.Millisecond).String())
				last = time.Now()
				phase = p.Phase
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(out, "total", time.Since(start))
	}
}

