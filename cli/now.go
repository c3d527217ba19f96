package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locktable/locktable/model"
)

// nowFlag is --now EPOCH|RFC3339: the time TTLs are judged at, for the
// commands that judge items read elsewhere (check --export, sql). An
// export shows the items as of its export time, so that is the default
// where one is read; set says it was given.
type nowFlag struct {
	at  int64 // epoch seconds
	set bool
}

func (f *nowFlag) Set(s string) error {
	at, err := parseNow(s)
	if err != nil {
		return err
	}
	f.at, f.set = at, true
	return nil
}

func (f *nowFlag) String() string {
	if !f.set {
		return ""
	}
	return strconv.FormatInt(f.at, 10)
}

func (f *nowFlag) Type() string { return "EPOCH|RFC3339" }

// parseNow reads a time as epoch seconds (TTL attributes' unit) or RFC
// 3339 (an export summary's exportTime, as it is written). Milliseconds,
// the usual slip, are refused rather than read as a time 50,000 years
// ahead.
func parseNow(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, fmt.Errorf("%q: a time before 1970", s)
		case n > model.MaxTTL:
			return 0, fmt.Errorf("%q looks like milliseconds: give epoch seconds (%d)", s, n/1000)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("%q: want epoch seconds (1709294400) or RFC 3339 (2024-03-01T12:00:00Z)", s)
	}
	if model.Epoch(t) < 0 {
		return 0, fmt.Errorf("%q: a time before 1970", s)
	}
	return model.Epoch(t), nil
}

// nowStamp renders epoch seconds as the reports print a time.
func nowStamp(at int64) string { return time.Unix(at, 0).UTC().Format(time.RFC3339) }
