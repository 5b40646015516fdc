package crash

import (
	"errors"
	"strings"
	"testing"
)

// A panic becomes an *Error with its value and the stack of the goroutine
// that panicked, and keeps that stack when raised again elsewhere.
func TestPanicCarriedToAnotherGoroutine(t *testing.T) {
	t.Parallel()
	done := make(chan *Error)
	go func() { done <- Run(func() { explode() }) }()
	e := <-done
	if e == nil || e.Value != "boom" || !strings.Contains(string(e.Stack), "explode") {
		t.Fatalf("Run = %+v, want the panic with the stack of explode", e)
	}
	err := Call(func() error { Rethrow(e); return nil })
	var got *Error
	if !errors.As(err, &got) || got != e {
		t.Fatalf("Call = %v, want the same *Error", err)
	}
	if !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("message %q does not say it is an internal error, and what", err)
	}
}

// Without a panic nothing changes: Run returns nil, Call the function's
// error, Rethrow of nil does nothing.
func TestNoPanic(t *testing.T) {
	t.Parallel()
	want := errors.New("plain")
	if Run(func() {}) != nil || Call(func() error { return want }) != want {
		t.Error("a function that returned was taken for a panic")
	}
	Rethrow(nil)
}

func explode() { panic("boom") }
