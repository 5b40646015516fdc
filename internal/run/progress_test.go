package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/crash"
)

// A panic in the progress loop does not take the program down from its own
// goroutine: stop raises it in the caller's, where the run's recover is.
func TestProgressPanicReachesTheCaller(t *testing.T) {
	t.Parallel()
	reported := make(chan struct{})
	stop := logProgress(context.Background(), zap.NewNop(), time.Millisecond, func() []zap.Field { close(reported); panic("boom") })
	<-reported // the loop is panicking
	err := crash.Call(func() error { stop(); return nil })
	var ce *crash.Error
	if !errors.As(err, &ce) || ce.Value != "boom" {
		t.Fatalf("stop after a panic in the loop: %v, want the panic as a *crash.Error", err)
	}
}

// Without a panic, stop ends the loop and returns.
func TestProgressStops(t *testing.T) {
	t.Parallel()
	reported := make(chan struct{}, 1)
	stop := logProgress(context.Background(), zap.NewNop(), time.Millisecond, func() []zap.Field {
		select {
		case reported <- struct{}{}:
		default:
		}
		return nil
	})
	select {
	case <-reported:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop never reported progress")
	}
	if err := crash.Call(func() error { stop(); return nil }); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
