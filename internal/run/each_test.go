package run

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/orgsync/orgsync/internal/util/crash"
)

// A job that panics does not take the process down from its goroutine:
// the other jobs finish, and the panic is raised again in the caller,
// where a command or the daemon recovers it.
func TestEachRaisesAPanicInTheCaller(t *testing.T) {
	t.Parallel()
	var finished atomic.Int32
	err := crash.Call(func() error {
		each(context.Background(), 3, func(_ context.Context, i int) {
			if i == 1 {
				var m map[string]int
				m["x"]++ // a nil map: a bug
			}
			finished.Add(1)
		})
		return nil
	})
	var e *crash.Error
	if !errors.As(err, &e) || finished.Load() != 2 {
		t.Fatalf("err = %v after %d jobs, want the panic after the 2 others", err, finished.Load())
	}
}
