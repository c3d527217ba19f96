package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/ui/live"
)

// TestLiveOff: the UI is told a table has no stream, or that its stream
// was disabled, as a *live.Off carrying the line that enables one; any
// other error is handed on as it is.
func TestLiveOff(t *testing.T) {
	var off *live.Off
	err := liveOff(&stream.NoStreamError{Tables: []string{"accounts", "unique_x"}}, "http://127.0.0.1:8000")
	if !errors.As(err, &off) || off.Why != "no stream" || strings.Count(off.Enable, "aws dynamodb update-table") != 2 ||
		!strings.Contains(off.Enable, "--table-name unique_x --stream-specification StreamEnabled=true") || !strings.Contains(off.Enable, "--endpoint-url http://127.0.0.1:8000") {
		t.Errorf("no stream: %#v", err)
	}
	err = liveOff(&stream.DisabledError{Table: "accounts"}, "")
	if !errors.As(err, &off) || off.Why != "stream disabled" || !strings.Contains(off.Enable, "--table-name accounts") || strings.Contains(off.Enable, "--endpoint-url") {
		t.Errorf("disabled: %#v", err)
	}
	other := errors.New("throttled")
	if err := liveOff(other, ""); err != other {
		t.Errorf("another error: %v", err)
	}
}
