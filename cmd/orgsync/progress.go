package main

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// progressEvery is how often a long run on a terminal reports progress.
const progressEvery = 5 * time.Second

// progress reports, on a terminal, the action requests sent out of those
// planned and the time left at the configured request rate.
type progress struct {
	done chan struct{}
	quit chan struct{}
}

func startProgress(ctx context.Context, e *env, p *planned) *progress {
	pr := &progress{done: make(chan struct{}), quit: make(chan struct{})}
	if !e.interactive {
		close(pr.done)
		return pr
	}
	total := len(p.plan.Batches(reconcile.DefaultLimits()))
	perRequest := e.cfg.Target.Limits.Window / time.Duration(e.cfg.Target.Limits.Requests)
	sentBefore := actionRequests(p.client.Stats())
	go func() {
		defer close(pr.done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-pr.quit:
				return
			case <-tick.C:
				st := p.client.Stats()
				sent := actionRequests(st) - sentBefore
				left := time.Duration(max(total-sent, 0)) * perRequest
				e.log.Info("progress", zap.Int("sent", sent), zap.Int("requests", total),
					zap.Int("429s", st.TooManyRequests), zap.Duration("estimatedLeft", left.Round(time.Second)))
			}
		}
	}()
	return pr
}

// stop ends the reports and waits for the reporter to finish.
func (pr *progress) stop() {
	select {
	case <-pr.done:
	default:
		close(pr.quit)
		<-pr.done
	}
}

// actionRequests counts the action requests answered (retries included).
func actionRequests(st umapi.Stats) int {
	n := 0
	for _, c := range st.Requests[umapi.EndpointAction] {
		n += c
	}
	return n
}
