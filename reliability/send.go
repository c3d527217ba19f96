package reliability

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Send sends plan the way locktable's write commands do once it is
// confirmed: a signup or rename first looks for other holders of its new
// values (a value held without its lock is refused, a cancelled Result),
// then a fresh ClientRequestToken, Prepare, Execute. Every operation of the
// suite goes through here. The result carries the token even when err is
// not nil.
func Send(ctx context.Context, s *dynamo.Writer, plan model.Plan) (model.Result, error) {
	token := backend.NewToken()
	tx, err := s.Prepare(plan, token)
	if err != nil {
		return model.Result{Operation: plan.Operation, Keys: plan.Keys, Token: token}, err
	}
	if plan.Operation == "signup" || plan.Operation == "rename" {
		// The lookup judges a lock's TTL as the prepared request does.
		_, taken, err := s.TakenBy(ctx, tx.Plan)
		if err != nil {
			return model.Result{Operation: plan.Operation, Keys: plan.Keys, Token: token, Outcome: model.NotSent}, err
		}
		if len(taken) > 0 {
			return s.Refuse(plan, taken), nil
		}
	}
	return s.Execute(ctx, tx)
}
