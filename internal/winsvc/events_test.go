package winsvc

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// recorder is an event log in memory.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(kind string, id uint32, msg string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %d %s", kind, id, msg))
	return nil
}
func (r *recorder) Info(id uint32, msg string) error    { return r.add("info", id, msg) }
func (r *recorder) Warning(id uint32, msg string) error { return r.add("warning", id, msg) }
func (r *recorder) Error(id uint32, msg string) error   { return r.add("error", id, msg) }

// TestTheEventLogGetsTheOutcomesNotTheProgress: the daemon's start and
// stop, a run's summary, an approval held and decided, warnings and
// errors reach the event log with their fields and ids; progress, the
// changes and debug lines do not; the logger's own core still gets
// every line.
func TestTheEventLogGetsTheOutcomesNotTheProgress(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	own, all := observer.New(zapcore.DebugLevel)
	log := zap.New(zapcore.NewTee(own, NewEventCore(rec))).With(zap.String("org", "acme"))
	log.Info("daemon started", zap.String("listen", "127.0.0.1:9090"))
	log.Info("source read", zap.Int("users", 3))
	log.Info("progress", zap.Int("sent", 10))
	log.Info("+ create dave@example.com")
	log.Debug("request", zap.String("path", "/v2/usermanagement"))
	log.Info("summary", zap.Int("create", 2), zap.Int("requests", 3))
	log.Warn("safety limit: destructive changes held for approval", zap.String("approval", "a1"))
	log.Info("approval a1 approved by ops")
	log.Info("approval a2 rejected by ops")
	log.Error("run failed", zap.Error(fmt.Errorf("reading the source: refused")))
	log.Warn("skipping a scheduled run: the previous run is still going")
	log.Error("notifications not sent")
	log.Info("daemon stopped")
	want := []string{
		"info 1 daemon started {\"org\": \"acme\", \"listen\": \"127.0.0.1:9090\"}",
		"info 10 summary {\"org\": \"acme\", \"create\": 2, \"requests\": 3}",
		"warning 20 safety limit: destructive changes held for approval {\"org\": \"acme\", \"approval\": \"a1\"}",
		"info 20 approval a1 approved by ops {\"org\": \"acme\"}",
		"info 20 approval a2 rejected by ops {\"org\": \"acme\"}",
		"error 10 run failed {\"org\": \"acme\", \"error\": \"reading the source: refused\"}",
		"warning 100 skipping a scheduled run: the previous run is still going {\"org\": \"acme\"}",
		"error 101 notifications not sent {\"org\": \"acme\"}",
		"info 2 daemon stopped {\"org\": \"acme\"}",
	}
	if got := strings.Join(rec.events, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("event log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if all.Len() != 13 {
		t.Errorf("the logger's own core got %d lines, want 13", all.Len())
	}
}
