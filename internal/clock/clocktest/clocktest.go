// Package clocktest runs a test's time cases at several clocks, so that no
// test passes only on the day it was written.
package clocktest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/internal/clock"
)

// Env names the clocks the time cases run at: a comma-separated list of
// RFC 3339 times, or "now" for the machine's time when the test runs.
const Env = "LOCKTABLE_TEST_CLOCKS"

// Default are the clocks the time cases run at unless Env says otherwise:
// a day in the past, the day the test runs, and a day years ahead.
const Default = "2026-12-01T23:20:00Z,now,2031-06-30T12:00:00Z"

// Times are the clocks the time cases run at (Env, else Default), each
// truncated to the second as TTLs are.
func Times(t testing.TB) []time.Time {
	t.Helper()
	spec := os.Getenv(Env)
	if strings.TrimSpace(spec) == "" {
		spec = Default
	}
	var at []time.Time
	for s := range strings.SplitSeq(spec, ",") {
		s = strings.TrimSpace(s)
		if s == "now" {
			at = append(at, clock.System().Now().UTC().Truncate(time.Second))
			continue
		}
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("%s=%q: %q is neither now nor an RFC 3339 time", Env, spec, s)
		}
		at = append(at, tm.UTC().Truncate(time.Second))
	}
	return at
}

// Each runs f as a subtest at each of Times, named by its time.
func Each(t *testing.T, f func(t *testing.T, at time.Time)) {
	t.Helper()
	for _, at := range Times(t) {
		t.Run(at.Format("2006-01-02T15:04:05Z"), func(t *testing.T) { f(t, at) })
	}
}

// Name is a short name for at, for tables and items a time case makes.
func Name(at time.Time) string { return fmt.Sprintf("%d", at.Unix()) }
