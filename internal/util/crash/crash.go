// Package crash turns a panic into an error that keeps the panic's value
// and stack, and carries a panic from the goroutine where it happened to
// the one that waits for it, so that one recover at the top of a run (a
// command, a daemon's run) catches a panic anywhere below it. A panic is
// a bug; it must not take the program down with it.
package crash

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic.
type Error struct {
	Value any    // what was passed to panic
	Stack []byte // the stack of the goroutine that panicked
}

// Error says that the program hit a bug, and what it was.
func (e *Error) Error() string {
	return fmt.Sprintf("internal error (a bug in orgsync; please report it with the log): %v", e.Value)
}

// From returns the *Error of a value recover returned: the value itself
// when it is one already (a panic carried from another goroutine keeps its
// stack), else a new one with the current stack.
func From(v any) *Error {
	if e, ok := v.(*Error); ok {
		return e
	}
	return &Error{Value: v, Stack: debug.Stack()}
}

// catch, deferred, turns a panic of the function into an *Error in *err.
func catch(err *error) {
	if v := recover(); v != nil {
		*err = From(v)
	}
}

// Run runs fn and returns the *Error of a panic in it, nil when it
// returned.
func Run(fn func()) (e *Error) {
	defer func() {
		if v := recover(); v != nil {
			e = From(v)
		}
	}()
	fn()
	return nil
}

// Rethrow panics again with e in the calling goroutine, when e is not nil,
// for a panic captured by Run in another goroutine.
func Rethrow(e *Error) {
	if e != nil {
		panic(e)
	}
}

// Call runs fn and returns its error, or the *Error of a panic in it.
func Call(fn func() error) (err error) {
	defer catch(&err)
	return fn()
}
