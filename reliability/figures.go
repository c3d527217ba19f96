package reliability

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/locktable/locktable/internal/testseed"
)

// Environment variables the suite reads.
const (
	// OutEnv names the file that figures are appended to, one "name value"
	// line each.
	OutEnv = "LOCKTABLE_RELIABILITY_OUT"
	// FullEnv selects full scale when set to 1.
	FullEnv = "LOCKTABLE_RELIABILITY_FULL"
)

// Full reports whether the suite runs at full scale.
func Full() bool { return os.Getenv(FullEnv) == "1" }

// Scale returns full at full scale, else bounded.
func Scale(bounded, full int) int {
	if Full() {
		return full
	}
	return bounded
}

// Seed returns the seed of a test's random choices and logs it, so that a
// failure names the seed that replays it: testseed.Env when set; else a fixed
// seed in the bounded suite (make test draws the same choices every run)
// and a new one at full scale (make reliability explores).
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed, from := uint64(1), "fixed"
	if n, ok := testseed.FromEnv(t); ok {
		seed, from = n, testseed.Env
	} else if Full() {
		seed, from = rand.Uint64(), "drawn"
	}
	t.Logf("seed %d (%s); replay with %s=%d", seed, from, testseed.Env, seed)
	return seed
}

// Figures counts what one test did and found. Names are the figures of
// reliability/run's table (operations_run, commits, violations_...).
type Figures struct {
	mu     sync.Mutex
	values map[string]int64
	order  []string
}

// Add adds n to figure name; Add(name, 0) declares it, so that a violation
// count of 0 is written too.
func (f *Figures) Add(name string, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.values == nil {
		f.values = map[string]int64{}
	}
	if _, ok := f.values[name]; !ok {
		f.order = append(f.order, name)
	}
	f.values[name] += n
}

// Get returns figure name.
func (f *Figures) Get(name string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.values[name]
}

// Violations returns the sum of every figure whose name starts with
// "violations_".
func (f *Figures) Violations() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for name, v := range f.values {
		if strings.HasPrefix(name, "violations_") {
			n += v
		}
	}
	return n
}

// String lists the figures, one "name value" line each, in the order they
// were first added.
func (f *Figures) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, name := range f.order {
		fmt.Fprintf(&b, "%s %d\n", name, f.values[name])
	}
	return b.String()
}

// Append writes the figures to the file named by OutEnv, if set, in one
// write (O_APPEND keeps lines of tests running side by side whole).
func (f *Figures) Append() error {
	path := os.Getenv(OutEnv)
	if path == "" {
		return nil
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	_, err = file.WriteString(f.String())
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
