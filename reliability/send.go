package reliability

import (
	"context"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Send sends plan the way locktable's write commands do once it is
// confirmed: a fresh ClientRequestToken, Prepare, Execute. Every operation
// of the suite goes through here, so that what the CLI adds before a send
// is added once. The result carries the token even when err is not nil.
//
// TODO(holder lookup): PATTERN.md's "Other holders" lookup before a
// signup or rename sends belongs here, called the way cli/write.go calls
// it; a refusal from it is a cancelled Result, not an error.
func Send(ctx context.Context, s *dynamo.Store, plan model.Plan) (dynamo.Result, error) {
	token := dynamo.NewToken()
	tx, err := s.Prepare(plan, token)
	if err != nil {
		return dynamo.Result{Operation: plan.Operation, Keys: plan.Keys, Token: token}, err
	}
	return s.Execute(ctx, tx)
}
