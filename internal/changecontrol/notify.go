package changecontrol

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/notify"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
)

// maxChangesNotified is how many changes a notification lists.
const maxChangesNotified = 10

// Dispatcher builds the notifiers of cfg's notify section; nil when it
// names none.
func Dispatcher(cfg *config.Config, log *zap.Logger) (*notify.Dispatcher, error) {
	n := &cfg.Notify
	d := &notify.Dispatcher{Log: log.Named("notify"), Attempts: n.Retries.Max + 1, MinWait: n.Retries.MinWait, MaxWait: n.Retries.MaxWait}
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

// send sends ev to cfg's notifiers, if any.
func (c *Control) send(ctx context.Context, ev *notify.Event) {
	d, err := Dispatcher(c.config(), c.log)
	if err != nil {
		c.log.Error("notifications not sent", zap.Error(err))
	}
	if d != nil {
		d.Send(ctx, ev)
	}
}

// notifyRun sends the events of an organization's run: its failure, the
// approval it created, and with notify.onChanges the changes it applied.
func (c *Control) notifyRun(ctx context.Context, r *run.Result, p *run.OrgPlan, held Held) {
	base := notify.Event{Org: r.Org.Name, Run: c.RunID(), Time: time.Now().UTC(), Counts: r.ByKind}
	var changes []reconcile.Change
	if p != nil && p.Plan != nil {
		changes = p.Plan.Changes
	}
	applied := 0
	for _, n := range r.ByKind {
		applied += n
	}
	if r.Err != nil {
		ev := base
		ev.Kind, ev.Error = notify.Failure, r.Err.Error()
		ev.Summary = fmt.Sprintf("the run failed; %d changes were applied", applied)
		ev.Changes, ev.More = firstChanges(changes)
		c.send(ctx, &ev)
	}
	if a := held.Created; a != nil {
		ev := base
		ev.Kind, ev.Approval = notify.Held, a.ID
		ev.Summary = fmt.Sprintf("%s: %d destructive changes held for approval; the other changes were applied", a.Reason, len(a.Changes))
		ev.Changes, ev.More = firstChanges(a.Changes)
		c.send(ctx, &ev)
	}
	if c.config().Notify.OnChanges && r.Err == nil && applied > 0 {
		ev := base
		ev.Kind, ev.Summary = notify.Changes, fmt.Sprintf("%d changes applied", applied)
		ev.Changes, ev.More = firstChanges(changes)
		c.send(ctx, &ev)
	}
}

// NotifyConfigError tells that the configuration file no longer loads and
// the last good one (cfg) is used, for the organizations named.
func (c *Control) NotifyConfigError(ctx context.Context, file string, orgs []string, problem error) {
	c.send(ctx, &notify.Event{Kind: notify.ConfigError, Org: strings.Join(orgs, ", "), Time: time.Now().UTC(),
		Summary: "the configuration file " + file + " does not load; the daemon goes on with the last good one", Error: problem.Error()})
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
