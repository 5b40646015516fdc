package run

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/target/umapi"
)

// progressEvery is how often a long run on a terminal reports progress;
// quietProgressEvery, how often a big sync reports it in a log file.
const (
	progressEvery      = 5 * time.Second
	quietProgressEvery = 30 * time.Second
)

// QuietAbove is the number of action requests above which a sync logs
// progress lines instead of one line per request (those go to debug): a
// first load of 10,000 users is some 1,000 requests.
const QuietAbove = 20

// reportProgress logs a progress line with fields() every progressEvery
// until the returned stop is called, when the logs go to a terminal.
func (j *Job) reportProgress(ctx context.Context, log *zap.Logger, fields func() []zap.Field) (stop func()) {
	if !j.opts.Interactive {
		return func() {}
	}
	return logProgress(ctx, log, progressEvery, fields)
}

// logProgress logs a progress line with fields() every interval until the
// returned stop is called. A panic in the loop (in fields, say) ends it and
// is raised again by stop, in the caller's goroutine, where the run's
// recover reports it.
func logProgress(ctx context.Context, log *zap.Logger, every time.Duration, fields func() []zap.Field) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	var panicked *crash.Error
	go func() {
		defer close(done)
		panicked = crash.Run(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-quit:
					return
				case <-tick.C:
					log.Info("progress", fields()...)
				}
			}
		})
	}()
	return func() { close(quit); <-done; crash.Rethrow(panicked) }
}

// readProgress reports the listing pages and single-user lookups read
// since the client's statistics were stats0.
func readProgress(c *umapi.Client, stats0 umapi.Stats) func() []zap.Field {
	return func() []zap.Field {
		st := c.Stats().Since(stats0)
		return []zap.Field{zap.Int("pagesRead", count(st, umapi.EndpointOrgUsers, umapi.EndpointGroupUsers)),
			zap.Int("lookups", count(st, umapi.EndpointUser)),
			zap.Int("429s", st.TooManyRequests)}
	}
}

// sendProgress reports the action requests sent out of the total planned
// and the time left at the configured request rate.
func sendProgress(p *OrgPlan, c *umapi.Client, total int) func() []zap.Field {
	perRequest := p.Org.Limits.Window / time.Duration(p.Org.Limits.Requests)
	before := count(c.Stats().Since(p.stats0), umapi.EndpointAction)
	return func() []zap.Field {
		st := c.Stats().Since(p.stats0)
		sent := count(st, umapi.EndpointAction) - before
		left := time.Duration(max(total-sent, 0)) * perRequest
		return []zap.Field{zap.Int("requestsSent", sent), zap.Int("requests", total),
			zap.Int("429s", st.TooManyRequests), zap.Duration("estimatedLeft", left.Round(time.Second))}
	}
}

// count sums the requests answered by the endpoints (retries included).
func count(st umapi.Stats, endpoints ...string) int {
	n := 0
	for _, ep := range endpoints {
		for _, c := range st.Requests[ep] {
			n += c
		}
	}
	return n
}
