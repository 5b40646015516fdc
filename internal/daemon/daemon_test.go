package daemon

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/config"
)

// TestRunRefusesToStart: a schedule that does not parse, or an address
// already taken, stops the daemon before it schedules anything, with what
// to do and the key to set (package listenaddr tells the other causes).
func TestRunRefusesToStart(t *testing.T) {
	t.Parallel()
	path := example(t, "")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		sched config.Schedule
		want  string
	}{
		{config.Schedule{Cron: "every tuesday", Listen: "127.0.0.1:0"}, "schedule:"},
		{config.Schedule{Cron: "@every 1h", Listen: busy.Addr().String()}, busy.Addr().String() + ": another program (perhaps another orgsync) uses that address; stop it, or set schedule.listen (or --listen)"},
	}
	for _, tt := range tests {
		s := setupOf(t, path, zap.NewNop())
		s.Config.Schedule = tt.sched
		err := Run(context.Background(), s)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "listen tcp") {
			t.Errorf("%+v: error %v, want %q", tt.sched, err, tt.want)
		}
	}
}

// TestServesUntilStopped: before its first run the daemon is ready, says
// when it runs next and that it has not run yet; it stops when its context
// ends.
func TestServesUntilStopped(t *testing.T) {
	t.Parallel()
	d, addr, stop := startDaemon(t, config.Schedule{Cron: "@every 1h"})
	h := health(t, addr)
	if h.Status != "ok" || d.last.Load() != nil || time.Until(d.nextRun(time.Now())) < 59*time.Minute {
		t.Errorf("/healthz %+v: want ok, no run yet, the next in an hour", h)
	}
	stop()
}

// TestNextRunStaysPut: the next run the page and /healthz show is the one the
// scheduler has placed; it does not slide forward as time passes ("@every"
// counts from when the scheduler last fired, not from each request).
func TestNextRunStaysPut(t *testing.T) {
	t.Parallel()
	d, _, stop := startDaemon(t, config.Schedule{Cron: "@every 1h"})
	defer stop()
	waitFor(t, "the scheduler to place its run", func() bool { return !d.cron.Entry(d.entry).Next.IsZero() })
	first := d.nextRun(time.Now()).UTC()
	later := time.Now().Add(time.Minute)
	if d.sched.Next(later).Equal(first) {
		t.Fatalf("the schedule's next run a minute later is %v too: the test cannot tell", first)
	}
	if next := d.nextRun(later).UTC(); !next.Equal(first) {
		t.Errorf("/healthz nextRun moved from %v to %v with no run in between", first, next)
	}
}

// startDaemon runs a daemon of the CSV example on sched until it is
// ready; stop ends it and checks it stopped cleanly.
func startDaemon(t *testing.T, sched config.Schedule) (d *daemon, addr string, stop func()) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	s := setupOf(t, example(t, ""), zap.New(core))
	s.Config.Schedule, s.Listen = sched, "127.0.0.1:0" // the daemon binds a free port and logs it
	d = newTestDaemon(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.run(ctx, false) }()
	waitFor(t, "the daemon's address", func() bool {
		for _, e := range logs.FilterMessage("daemon started").All() {
			addr, _ = e.ContextMap()["listen"].(string)
		}
		return addr != ""
	})
	waitFor(t, "/readyz", func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return d, addr, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(shutdownTimeout):
			t.Fatal("the daemon did not stop")
		}
	}
}

// health reads /healthz.
func health(t *testing.T, addr string) Health {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestEveryScheduleShowsItsTimezone: an @every schedule runs at fixed
// intervals, and its times are shown in schedule.timezone all the same.
func TestEveryScheduleShowsItsTimezone(t *testing.T) {
	t.Parallel()
	d, _, stop := startDaemon(t, config.Schedule{Cron: "@every 1h", Timezone: "Asia/Kolkata"})
	defer stop()
	if z := d.zone(); !strings.HasPrefix(z, "Asia/Kolkata (IST)") {
		t.Errorf("zone %q, want Asia/Kolkata", z)
	}
	if _, offset := d.nextRun(time.Now()).Zone(); offset != 5*3600+1800 {
		t.Errorf("the next run is shown at offset %ds, want IST's", offset)
	}
}
