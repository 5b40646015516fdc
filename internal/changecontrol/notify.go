package changecontrol

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/plural"
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
		d.Notifiers = append(d.Notifiers, &notify.Webhook{URL: w.URL, Format: w.Format, Client: outbound.New(outbound.Options{Timeout: n.Timeout})})
	}
	if m := n.Email; m != nil {
		email := &notify.Email{Host: m.Host, Port: m.Port, From: m.From, To: m.To, Username: m.Username, Password: m.Password, TLS: m.TLS,
			Timeout: n.Timeout}
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

// notify sends ev to cfg's notifiers, if any, in the background: no
// notification holds the run that told of it. Each is bounded by
// notify.timeout, retries included; Wait waits for those under way.
func (c *Control) notify(ev *notify.Event) {
	cfg := c.config()
	d, err := Dispatcher(cfg, c.log)
	if err != nil {
		c.log.Error("notifications not sent", zap.Error(err))
	}
	if d == nil {
		return
	}
	ev.Host = host()
	c.sending.Add(1)
	go func() {
		defer c.sending.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Notify.Timeout)
		defer cancel()
		d.Send(ctx, ev)
	}()
}

// Wait waits for the notifications under way (each is bounded by
// notify.timeout): a command calls it before it exits.
func (c *Control) Wait() { c.sending.Wait() }

// host names this machine (or the pod) in notifications.
func host() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown host"
	}
	return h
}

// notifyRun sends the events of an organization's run, once it is
// recorded: its failure, the approval it created, the approvals it
// narrowed, and with notify.onChanges the changes it applied.
func (c *Control) notifyRun(r *run.Result) {
	base := notify.Event{Org: r.Org.Name, Run: r.Run, Time: time.Now().UTC(), Counts: r.ByKind}
	var changes []reconcile.Change
	if r.Plan != nil && r.Mode != run.Dry {
		changes = r.Plan.Changes
	}
	applied := 0
	for _, n := range r.ByKind {
		applied += n
	}
	if r.Err != nil {
		ev := base
		ev.Kind, ev.Error, ev.Phase = notify.Failure, r.Err.Error(), r.Phase
		ev.Summary = fmt.Sprintf("the run failed (%s); %s applied", r.Phase, plural.Of(applied, "change was", "changes were"))
		ev.Changes, ev.More = firstChanges(changes)
		c.notify(&ev)
	}
	for _, a := range []*store.Approval{r.Decision.Created, r.Decision.HeldAgain} {
		if a == nil {
			continue
		}
		ev := base
		ev.Kind, ev.Approval = notify.Held, a.ID
		ev.Summary = fmt.Sprintf("%s: %s held for approval; the other changes were applied", a.Reason, plural.Of(len(a.Changes), "destructive change", "destructive changes"))
		ev.Changes, ev.More = firstChanges(a.Changes)
		c.notify(&ev)
	}
	for _, n := range r.Decision.Narrowed {
		ev := base
		ev.Kind, ev.Approval = notify.Narrowed, n.Approval.ID
		ev.Summary = fmt.Sprintf("approval %s: %s no longer asked for by the sources, %s still held", n.Approval.ID,
			plural.Of(len(n.Dropped), "change", "changes"), plural.Of(len(n.Approval.Changes), "change", "changes"))
		if n.Approval.Status == store.Dropped {
			ev.Approval = "" // nothing left to approve or reject
			ev.Summary += ": the approval is dropped"
		}
		ev.Changes, ev.More = firstChanges(n.Dropped)
		c.notify(&ev)
	}
	if c.config().Notify.OnChanges && r.Err == nil && applied > 0 {
		ev := base
		ev.Kind, ev.Summary = notify.Changes, plural.Of(applied, "change applied", "changes applied")
		ev.Changes, ev.More = firstChanges(changes)
		c.notify(&ev)
	}
}

// notifyUnrecorded tells that r's run applied changes the state
// directory could not record (err).
func (c *Control) notifyUnrecorded(r *run.Result, err error) {
	c.notify(&notify.Event{Kind: notify.Failure, Org: r.Org.Name, Run: r.Run, Time: time.Now().UTC(), Counts: r.ByKind,
		Phase: run.PhaseRecord, Error: err.Error(),
		Summary: "changes were applied but the state directory could not record them: the history and the run record lack this run"})
}

// NotifyConfigError tells that the configuration file no longer loads and
// the last good one (cfg) is used, for the organizations named.
func (c *Control) NotifyConfigError(file string, orgs []string, problem error) {
	c.notify(&notify.Event{Kind: notify.ConfigError, Org: strings.Join(orgs, ", "), Time: time.Now().UTC(),
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
