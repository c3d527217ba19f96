package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/live"
)

// liveStream follows the streams of store's tables for the terminal UI,
// as watch does, so that others' writes show unasked: nil on the demo,
// whose embedded backend has no stream.
func (a *app) liveStream(store *dynamo.Store) live.Stream {
	if store.Endpoint.Demo {
		return nil
	}
	api, streams, clk, tables, endpoint := a.conn.DynamoDB(), a.conn.Streams(), a.clock, store.Schema.Tables(), store.Endpoint.URL
	return func(ctx context.Context, h live.Handler) error {
		sources, err := stream.Find(ctx, api, tables, endpoint)
		if err != nil {
			return liveOff(err, endpoint)
		}
		f := stream.NewFollower(streams, sources, stream.Options{Clock: clk, Note: h.Note})
		if err := f.Start(ctx); err != nil {
			return liveOff(err, endpoint)
		}
		h.Started()
		err = f.Follow(ctx, func(ctx context.Context, b stream.Batch) error { return h.Deliver(ctx, b.Changes) })
		return liveOff(err, endpoint)
	}
}

// liveOff is err as the UI takes it: a table without a stream, or a
// stream disabled while it was followed, is a *live.Off that says how to
// enable one.
func liveOff(err error, endpoint string) error {
	var no *stream.NoStreamError
	var d *stream.DisabledError
	switch {
	case errors.As(err, &no):
		var lines []string
		for _, t := range no.Tables {
			lines = append(lines, stream.EnableCommand(model.Printable(t), endpoint))
		}
		return &live.Off{Why: "no stream", Enable: strings.Join(lines, " && ")}
	case errors.As(err, &d):
		return &live.Off{Why: "stream disabled", Enable: stream.EnableCommand(model.Printable(d.Table), endpoint)}
	}
	return err
}
