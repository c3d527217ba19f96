// Package reliability holds locktable's reliability suite (issue 7): the
// write path under contention, behind a fault-injecting proxy, and killed
// mid-write. Its tests run bounded under `make test` and at full scale under
// `make reliability` (LOCKTABLE_RELIABILITY_FULL=1); each appends its
// figures to the file named by LOCKTABLE_RELIABILITY_OUT, which
// reliability/run sums into one table.
//
// The non-test files are what the tests share: Send (a plan sent the way
// the CLI sends it), FaultProxy, and Figures.
package reliability
