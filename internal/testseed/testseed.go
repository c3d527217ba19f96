// Package testseed reads the seed a random test is asked to replay, one
// way for every such test: LOCKTABLE_SEED, an unsigned integer.
package testseed

import (
	"os"
	"strconv"
	"testing"
)

// Env names the seed to replay.
const Env = "LOCKTABLE_SEED"

// FromEnv returns the seed Env asks for, and whether it asks; a value that
// is not a seed fails t.
func FromEnv(t testing.TB) (uint64, bool) {
	t.Helper()
	v := os.Getenv(Env)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: not a seed (an unsigned integer)", Env, v)
	}
	return n, true
}
