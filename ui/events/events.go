// Package events carries messages to the root model: from background work
// (the check, a search) through a Pump the root listens on, and from a
// widget to whoever handles what it asks for, through Emit.
package events

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// Pump carries messages from background workers to the root model, which
// listens for one at a time.
type Pump chan tea.Msg

// NewPump returns a pump with room for a few messages.
func NewPump() Pump { return make(Pump, 16) }

// Msg is a message that came through a pump: the root handles Msg.Msg as
// any other, then listens again.
type Msg struct{ Msg tea.Msg }

// Listen waits for the next message a worker posts.
func (p Pump) Listen() tea.Cmd {
	return func() tea.Msg { return Msg{<-p} }
}

// Post sends msg without ever blocking a worker for long: progress
// (mustArrive false) is dropped rather than queued while the UI is busy;
// a result waits until ctx ends.
func (p Pump) Post(ctx context.Context, msg tea.Msg, mustArrive bool) {
	if !mustArrive {
		select {
		case p <- msg:
		default:
		}
		return
	}
	select {
	case p <- msg:
	case <-ctx.Done():
	}
}

// Emit returns a command that hands msg back to Update: how a widget asks
// for what another one does.
func Emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
