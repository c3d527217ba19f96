package cli

import (
	"errors"
	"fmt"
)

// Exit statuses, as PATTERN.md fixes them.
const (
	ExitOK       = 0 // no problems; every write committed
	ExitProblems = 1 // check found problems
	ExitError    = 2 // usage errors, refusals, any failure
)

// exitError carries the status a command ends with.
type exitError struct {
	code int
	err  error // nil: exit quietly (the command already said what it had to)
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageErr is a usage error: exit 2.
func usageErr(format string, a ...any) error {
	return &exitError{code: ExitError, err: fmt.Errorf(format, a...)}
}

// exitCode maps an error returned by a command to its exit status.
func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if err != nil {
		return ExitError
	}
	return ExitOK
}
