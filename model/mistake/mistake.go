// Package mistake names each way the articles describe of getting
// uniqueness wrong, the problem it leaves, and what replaying it did
// (locktable demo break KIND); package dynamo/replay replays them.
package mistake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/locktable/locktable/model"
)

// Kind is one mistake: its name on the command line, the problem kind a
// check then shows, and what the buggy code does, in words.
type Kind struct {
	Name    string
	Problem model.ProblemKind
	Story   string
}

// Kinds are the mistakes, in the order the articles tell them.
var Kinds = []Kind{
	{"missing-lock", model.MissingLock,
		"a signup written with separate puts, no transaction, that dies after the account: its locks are never written"},
	{"gsi-duplicate", model.DuplicateValue,
		"the GSI misconception: two writers sign up with the same values at once, each guarding its put with attribute_not_exists on the unique attributes, which sees only the new item being written; both succeed, and each then puts the locks as if the values were its own"},
	{"rename-leak", model.OrphanLock,
		"a rename that writes the account and the new lock but never deletes the old lock"},
	{"delete-leak", model.OrphanLock,
		"a delete of the account alone: its locks stay behind"},
	{"foreign-lock", model.ForeignLock,
		"a lock handed to the wrong account: overwritten with another account as its owner while its holder keeps the value"},
	{"lapsed-reservation", model.ExpiredLock,
		"a signup that reserves each value first (a guarded put of its lock with a TTL 15 minutes ahead), writes the account, and dies before making the reservations permanent (removing the TTL); replayed with the reservation made 16 minutes ago, so its TTL has passed: the expired lock is still there (DynamoDB deletes it only eventually), blocking the value, and when it goes the account's value is unprotected"},
}

// Names lists the kinds' names.
func Names() []string {
	var out []string
	for _, k := range Kinds {
		out = append(out, k.Name)
	}
	return out
}

// Find returns the kind named name.
func Find(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Replay is what replaying a mistake did.
type Replay struct {
	Kind    string            `json:"kind"`
	Problem model.ProblemKind `json:"problem"`
	Story   string            `json:"story"`
	// Setup says what was written first, through the pattern.
	Setup    []string `json:"setup"`
	Accounts []string `json:"accounts"`
	// Sent are the buggy requests, in order, as the AWS CLI takes them;
	// Guarded the transactions locktable would send instead
	// (transact-write-items --cli-input-json).
	Sent    []json.RawMessage `json:"sent"`
	Guarded []json.RawMessage `json:"guarded"`
	// Found is what consistent reads of the keys involved show now.
	Found []model.Problem `json:"found"`
}

// advice names what fixes the problems found: locktable repair, for
// those it repairs; a person, for those it leaves (a duplicate, an invalid
// value), each of which says what to do.
func (r Replay) advice() string {
	repaired := 0
	for _, p := range r.Found {
		if p.LeftToAPerson() == "" {
			repaired++
		}
	}
	switch {
	case len(r.Found) == 0:
		return ""
	case repaired == len(r.Found):
		return ", locktable repair fixes them"
	case repaired == 0:
		return "; locktable repair leaves them to a person, as each says"
	}
	return fmt.Sprintf("; locktable repair fixes %d of them, and leaves the rest to a person, as each says", repaired)
}

// Lines is the replay in words, one line each, every string from the
// table made printable: the story, what was set up, the requests sent
// outside any transaction (as the AWS CLI takes them), the transaction
// locktable would send instead, and what the keys show now. Each request
// is one line, or, indented, one member a line (for a screen, where a
// long line would wrap inside a token).
func (r Replay) Lines(indented bool) ([]string, error) {
	request := func(doc []byte) []string {
		text := model.EscapeJSON(string(doc))
		var pretty bytes.Buffer
		if indented && json.Indent(&pretty, []byte(text), "  ", "  ") == nil {
			return strings.Split("  "+pretty.String(), "\n")
		}
		return []string{"  " + text}
	}
	lines := []string{fmt.Sprintf("%s: %s", r.Kind, r.Story)}
	for _, s := range r.Setup {
		lines = append(lines, "set up: "+model.Printable(s))
	}
	lines = append(lines, "sent, outside any transaction (aws dynamodb put-item / delete-item --cli-input-json):")
	for _, doc := range r.Sent {
		lines = append(lines, request(doc)...)
	}
	lines = append(lines, "locktable would send instead (aws dynamodb transact-write-items --cli-input-json):")
	for _, g := range r.Guarded {
		lines = append(lines, request(g)...)
	}
	lines = append(lines, fmt.Sprintf("now (consistent reads of the keys involved): %d problem(s); locktable check shows them%s", len(r.Found), r.advice()))
	for _, p := range r.Found {
		line := fmt.Sprintf("%s %s=%s", p.Kind, p.Constraint, p.Value)
		if len(p.Accounts) > 0 {
			line += " held by " + strings.Join(p.Accounts, ", ")
		}
		if p.Owner != "" {
			line += "; the lock names " + p.Owner
		}
		if why := p.LeftToAPerson(); why != "" {
			line += ": " + why // what the person does: repair never fixes it
		}
		lines = append(lines, "  "+model.Printable(line))
	}
	return lines, nil
}
