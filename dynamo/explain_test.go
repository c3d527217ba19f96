package dynamo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// errorPage is a proxy's HTML error page for status.
func errorPage(status int) string {
	return "<html><head><title>" + http.StatusText(status) + "</title></head><body><h1>" + http.StatusText(status) + "</h1></body></html>"
}

// answering is an endpoint that answers every request with status and
// body, as a proxy in front of DynamoDB does; calls counts the requests.
func answering(t *testing.T, status int, contentType, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestAnAnswerNotFromDynamoDBIsNamed: a 5xx whose body is a proxy's HTML
// page read "deserialization failed ... invalid character '<'", like a
// bug of ours. It says what the endpoint answered, and that it is not
// DynamoDB's, for a table's description and a scan alike.
func TestAnAnswerNotFromDynamoDBIsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string
	}{
		{"500 error page", http.StatusInternalServerError, "text/html", errorPage(500), "the endpoint answered 500 (not DynamoDB JSON)"},
		{"502 error page", http.StatusBadGateway, "text/html", errorPage(502), "the endpoint answered 502 (not DynamoDB JSON)"},
		{"200 web page", http.StatusOK, "text/html", "<!doctype html><html></html>", "the endpoint answered 200 (not DynamoDB JSON)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, calls := answering(t, tc.status, tc.contentType, tc.body)
			client, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			s := dynamo.NewStore(client, ep, model.DefaultSchema(model.LayoutSingle), clock.System())
			s.Segments = 1
			for name, read := range map[string]func() error{
				"describe": func() error { return s.Verify(context.Background()) },
				"scan": func() error {
					_, err := s.Checker.Check(context.Background(), nil)
					return err
				},
			} {
				err := read()
				if err == nil {
					t.Fatalf("%s: no error", name)
				}
				msg := err.Error()
				for _, want := range []string{tc.want, srv.URL} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: %q does not say %q", name, msg, want)
					}
				}
				if strings.Contains(msg, "invalid character") || strings.Contains(msg, "deserialization") {
					t.Errorf("%s: %q reads like a decoding bug", name, msg)
				}
			}
			if calls.Load() == 0 {
				t.Fatal("the endpoint saw no request")
			}
		})
	}
}

// TestAWriteBehindAnErrorPageIsUnknown: every request, the write and the
// reads that would settle it, answered by a proxy's 502 page. The write
// may have reached DynamoDB: it is unknown, not rejected, and the reason
// says what answered instead of quoting the JSON decoder.
func TestAWriteBehindAnErrorPageIsUnknown(t *testing.T) {
	t.Parallel()
	srv, _ := answering(t, http.StatusBadGateway, "text/html", errorPage(502))
	client, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := dynamo.NewStore(client, ep, model.DefaultSchema(model.LayoutSingle), clock.System())
	s.SetWritable(true)
	attrs := map[string]string{}
	for i, c := range s.Schema.Constraints {
		attrs[c.Attr] = fmt.Sprintf("v%d", i)
	}
	tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup("ACCT#a", attrs)), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Writer.Execute(context.Background(), tx)
	if err != nil || res.Outcome != model.Unknown || len(res.Reasons) != 1 {
		t.Fatalf("outcome %s %+v, err %v; want unknown, with the reason it could not be settled", res.Outcome, res.Reasons, err)
	}
	msg := res.Reasons[0].Message
	if !strings.Contains(msg, "the endpoint answered 502 (not DynamoDB JSON)") || strings.Contains(msg, "invalid character") {
		t.Fatalf("reason %q; want it to say the endpoint answered 502, not DynamoDB JSON", msg)
	}
}
