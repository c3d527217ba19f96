package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// foundJSON is find --json's one object.
type foundJSON struct {
	Query    string          `json:"query"`
	Accounts []accountJSON   `json:"accounts"`
	Orphans  []model.Problem `json:"orphans"`
	How      []string        `json:"how"`
	Note     string          `json:"note,omitempty"`
}

// accountJSON is an account found: its unique attributes (strings as
// they are, anything else as DynamoDB JSON) and each lock's state.
type accountJSON struct {
	ID         string            `json:"id"`
	Attributes map[string]string `json:"attributes"`
	Locks      []lockJSON        `json:"locks"`
}

type lockJSON struct {
	Constraint string           `json:"constraint"`
	Value      string           `json:"value,omitempty"`
	Status     model.LockStatus `json:"status"`
	Owner      string           `json:"owner,omitempty"`
}

func (a *app) findCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "find VALUE|KEY",
		Short: "Find the accounts and locks a value, an account key or a lock key names (exit 0 found, 1 nothing, 2 error)",
		Long: `find looks for what you paste: an account key (ACCT#e4c0e999, or the bare
e4c0e999), a lock key (UNIQ#EMAIL#ada@x.io), or a value of a unique
attribute. A value is followed from its lock to the lock's owner, and
looked up by value (the attribute's --index GSI, else a scan of the
accounts) when the lock names nobody, when its owner does not hold it, and
to list every holder of a duplicate. It says what it tried on stderr.`,
		Example: `  locktable find ada@lovelace.io
  locktable find ACCT#a1f9c3 --json
  locktable find UNIQ#HANDLE#ada`,
		GroupID:           "read",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.schema()
			if err != nil {
				return err
			}
			store, err := a.open(cmd.Context(), s)
			if err != nil {
				return err
			}
			var o backend.FindOptions
			if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				o.Progress = func(what string, n int64) { fmt.Fprintf(a.stderr, "\r%s: %d items read", what, n) }
			}
			found, err := store.Lookup.Find(cmd.Context(), args[0], o)
			if o.Progress != nil {
				fmt.Fprint(a.stderr, "\r\x1b[K")
			}
			if err != nil {
				return err
			}
			for _, h := range found.How {
				fmt.Fprintln(a.stderr, "tried "+model.Printable(h))
			}
			if asJSON {
				err = writeJSON(a.stdout, toFoundJSON(&s, found))
			} else {
				err = writeFound(a.stdout, &s, found, found.Now) // at the time the search judged
			}
			if err != nil {
				return err
			}
			if len(found.Accounts) == 0 && len(found.Orphans) == 0 {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was found as one JSON object")
	return cmd
}

func toFoundJSON(s *model.Schema, f backend.Found) foundJSON {
	out := foundJSON{Query: f.Query, Accounts: []accountJSON{}, Orphans: f.Orphans, How: f.How, Note: f.Note}
	if out.Orphans == nil {
		out.Orphans = []model.Problem{}
	}
	if out.How == nil {
		out.How = []string{}
	}
	for _, a := range f.Accounts {
		j := accountJSON{ID: a.ID, Attributes: map[string]string{}, Locks: []lockJSON{}}
		for _, l := range a.Locks {
			attr := s.Constraints[l.Constraint].Attr
			if v, ok := a.Item[attr]; ok {
				j.Attributes[attr] = valueText(v)
			}
			j.Locks = append(j.Locks, lockJSON{Constraint: attr, Value: l.Value, Status: l.Status, Owner: l.Owner})
		}
		out.Accounts = append(out.Accounts, j)
	}
	return out
}

// valueText is a string attribute as it is, anything else as DynamoDB JSON.
func valueText(v model.Value) string {
	if v.Kind == model.KindS {
		return v.S
	}
	return v.DynamoJSON()
}

// writeFound prints one line per account (each unique attribute with its
// lock's state) and per orphan lock, then the note.
func writeFound(w io.Writer, s *model.Schema, f backend.Found, now int64) error {
	var b strings.Builder
	for _, a := range f.Accounts {
		parts := []string{model.Printable(a.ID)}
		for _, l := range a.Locks {
			attr := s.Constraints[l.Constraint].Attr
			v, ok := a.Item[attr]
			if !ok {
				parts = append(parts, attr+" -")
				continue
			}
			state := "lock " + string(l.Status)
			if l.Owner != "" && l.Owner != a.ID {
				state += ", owner " + model.Printable(l.Owner)
			}
			parts = append(parts, attr+"="+quote(valueText(v))+" ("+state+")")
		}
		b.WriteString(strings.Join(parts, "  ") + "\n")
	}
	for _, p := range f.Orphans {
		line := problemLine(p) + "  (nobody holds it)"
		if note := p.TTLNote(now); note != "" {
			line += "  " + note
		}
		b.WriteString(line + "\n")
	}
	if f.Note != "" {
		b.WriteString(model.Printable(f.Note) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
