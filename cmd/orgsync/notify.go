package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/notify"
	"github.com/orgsync/orgsync/reconcile"
)

// maxChangesNotified is how many changes a notification lists.
const maxChangesNotified = 10

// dispatcher builds the notifiers of the configuration's notify section;
// nil when it names none.
func (e *env) dispatcher() (*notify.Dispatcher, error) {
	n := &e.cfg.Notify
	d := &notify.Dispatcher{Log: e.log.Named("notify"), Attempts: n.Retries.Max + 1, MinWait: n.Retries.MinWait, MaxWait: n.Retries.MaxWait}
	for _, w := range n.Webhooks {
		d.Notifiers = append(d.Notifiers, &notify.Webhook{URL: w.URL, Format: w.Format, Client: &http.Client{Timeout: 30 * time.Second}})
	}
	if m := n.Email; m != nil {
		email := &notify.Email{Host: m.Host, Port: m.Port, From: m.From, To: m.To, Username: m.Username, Password: m.Password, TLS: m.TLS}
		if m.CAFile != "" {
			pool, err := caPool(m.CAFile)
			if err != nil {
				return nil, fmt.Errorf("notify.email.caFile: %w", err)
			}
			email.TLSConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		d.Notifiers = append(d.Notifiers, email)
	}
	if len(d.Notifiers) == 0 {
		return nil, nil
	}
	return d, nil
}

// caPool is the system's roots and the certificates of the PEM file.
func caPool(file string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", file)
	}
	return pool, nil
}

// notifyRun sends the events of organization p's run: its failure, the
// approval it created, and with notify.onChanges the changes it applied.
// A dry run notifies nothing; a notifier that fails is logged.
func (e *env) notifyRun(ctx context.Context, p *planned, rep *runReport, mode applyMode) {
	if mode == applyDry {
		return
	}
	d, err := e.dispatcher()
	if d == nil {
		if err != nil {
			p.log.Error("notifications not sent", zap.Error(err))
		}
		return
	}
	base := notify.Event{Org: p.org.Name, Run: runID(p.start), Time: time.Now().UTC(), Counts: rep.applied}
	var changes []reconcile.Change
	if p.plan != nil {
		changes = p.plan.Changes
	}
	applied := 0
	for _, n := range rep.applied {
		applied += n
	}
	if rep.err != nil {
		ev := base
		ev.Kind, ev.Error = notify.Failure, rep.err.Error()
		ev.Summary = fmt.Sprintf("the run failed; %d changes were applied", applied)
		ev.Changes, ev.More = firstChanges(changes)
		d.Send(ctx, &ev)
	}
	if a := rep.held.created; a != nil {
		ev := base
		ev.Kind, ev.Approval = notify.Held, a.ID
		ev.Summary = fmt.Sprintf("%s: %d destructive changes held for approval; the other changes were applied", a.Reason, len(a.Changes))
		ev.Changes, ev.More = firstChanges(a.Changes)
		d.Send(ctx, &ev)
	}
	if e.cfg.Notify.OnChanges && rep.err == nil && applied > 0 {
		ev := base
		ev.Kind, ev.Summary = notify.Changes, fmt.Sprintf("%d changes applied", applied)
		ev.Changes, ev.More = firstChanges(changes)
		d.Send(ctx, &ev)
	}
}

// firstChanges renders the first maxChangesNotified changes and counts
// the rest.
func firstChanges(changes []reconcile.Change) ([]string, int) {
	n := min(len(changes), maxChangesNotified)
	out := make([]string, n)
	for i := range n {
		out[i] = changes[i].String()
	}
	return out, len(changes) - n
}
