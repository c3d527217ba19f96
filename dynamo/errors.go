package dynamo

import (
	"context"
	"errors"
	"fmt"
	"net"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/redact"
)

// credentialCodes are the error codes AWS answers a request whose
// credentials it refuses with.
var credentialCodes = map[string]bool{
	"UnrecognizedClientException": true,
	"InvalidSignatureException":   true,
	"ExpiredTokenException":       true,
	"ExpiredToken":                true,
	"InvalidClientTokenId":        true,
	"MissingAuthenticationToken":  true,
	"IncompleteSignature":         true,
	"AccessDeniedException":       true,
}

// Error is an SDK error explained in one line a person can act on. It
// unwraps to the SDK error, for errors.As.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// explain turns an SDK error from operation op on table into an *Error
// naming the table and endpoint.
func explain(err error, op, table string, ep backend.Endpoint) error {
	var (
		notFound  *types.ResourceNotFoundException
		signErr   *v4.SigningError
		credErr   *CredentialsError
		sendErr   *smithyhttp.RequestSendError
		apiErr    smithy.APIError
		netErr    net.Error
		decodeErr *smithy.DeserializationError
		respErr   *smithyhttp.ResponseError
	)
	msg := ""
	switch {
	case errors.As(err, &notFound):
		msg = fmt.Sprintf("table %q not found at %s", table, ep)
	case errors.As(err, &credErr):
		msg = fmt.Sprintf("no usable AWS credentials for %s (configure a profile, AWS_ACCESS_KEY_ID or SSO; --profile picks one): %v", ep, credErr.Err)
	case errors.As(err, &signErr):
		msg = fmt.Sprintf("no usable AWS credentials for %s (configure a profile, AWS_ACCESS_KEY_ID or SSO; --profile picks one): %v", ep, signErr.Err)
	case errors.As(err, &apiErr) && credentialCodes[apiErr.ErrorCode()]:
		msg = fmt.Sprintf("credentials rejected by %s: %s: %s", ep, apiErr.ErrorCode(), apiErr.ErrorMessage())
	case errors.As(err, &apiErr):
		msg = fmt.Sprintf("%s %s at %s: %s: %s", op, table, ep, apiErr.ErrorCode(), apiErr.ErrorMessage())
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("no answer from %s in time (%s %s)", ep, op, table)
	case errors.As(err, &sendErr), errors.As(err, &netErr):
		msg = fmt.Sprintf("cannot reach %s (%s %s): %v", ep, op, table, innermost(err))
	case errors.As(err, &decodeErr) && errors.As(err, &respErr):
		// Something other than DynamoDB answered, typically a proxy's or
		// a load balancer's HTML error page: the JSON decoder's complaint
		// about its first '<' would read like a bug of ours.
		msg = fmt.Sprintf("%s %s at %s: the endpoint answered %d (not DynamoDB JSON)", op, table, ep, respErr.HTTPStatusCode())
	default:
		msg = fmt.Sprintf("%s %s at %s: %v", op, table, ep, err)
	}
	return &Error{Msg: redact.String(msg), Err: err}
}

// innermost returns the deepest wrapped error, which for a failed
// connection is the useful part ("connection refused").
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// IsTableNotFound reports whether err says a table does not exist.
func IsTableNotFound(err error) bool {
	var notFound *types.ResourceNotFoundException
	return errors.As(err, &notFound)
}
