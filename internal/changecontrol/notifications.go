package changecontrol

import (
	"cmp"
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
	"github.com/orgsync/orgsync/internal/util/oneline"
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

// runEvent is the one notification of an organization's run, nil when
// it has nothing to tell: its failure; else the approval it released
// (approved); else the approval it held; else the approvals it narrowed;
// else, with notify.onChanges, the changes it applied. What else the run
// did is said in the summary.
func runEvent(r *run.Result, onChanges bool) *notify.Event {
	ev := &notify.Event{Org: r.Org.Name, Run: r.Run, Time: time.Now().UTC(), Counts: r.ByKind}
	var sentChanges []reconcile.Change
	if r.Plan != nil && r.Mode != run.Dry {
		sentChanges = r.Plan.Changes
	}
	applied := plural.Of(total(r.ByKind), "change was", "changes were") + " applied"
	d := &r.Decision
	held := heldBy(d)
	switch {
	case r.Err != nil && d.Released != nil && d.Released.Status == store.Pending:
		ev.Kind, ev.Approval = notify.Failure, d.Released.ID
		ev.Summary = fmt.Sprintf("approving approval %s failed (%s): it stays pending; %s", d.Released.ID, r.Phase, applied)
		ev.Changes, ev.More = firstChanges(sentChanges)
	case r.Err != nil && d.Released != nil:
		ev.Kind = notify.Failure
		ev.Summary = fmt.Sprintf("approval %s %s by %s, but the run failed (%s); %s", d.Released.ID, d.Released.Status, d.Released.Decided, r.Phase, applied)
		ev.Changes, ev.More = firstChanges(sentChanges)
	case r.Err != nil:
		ev.Kind = notify.Failure
		ev.Summary = fmt.Sprintf("the run failed (%s); %s", r.Phase, applied)
		ev.Changes, ev.More = firstChanges(sentChanges)
	case d.Released != nil:
		ev.Kind, ev.Approval = notify.Approved, d.Released.ID
		ev.Summary = fmt.Sprintf("approval %s approved by %s: %s", d.Released.ID, d.Released.Decided, applied)
		if len(d.Dropped) > 0 {
			ev.Summary += fmt.Sprintf("; %s no longer asked for by the sources, left out", plural.Of(len(d.Dropped), "change", "changes"))
		}
		ev.Changes, ev.More = firstChanges(sentChanges)
	case held != nil:
		ev.Kind, ev.Approval = notify.Held, held.ID
		ev.Summary = fmt.Sprintf("%s: %s held for approval; the other changes were applied (%s)", held.Reason,
			plural.Of(len(held.Changes), "destructive change", "destructive changes"), applied)
		ev.Changes, ev.More = firstChanges(held.Changes)
	case len(d.Narrowed) > 0:
		n := d.Narrowed[0]
		ev.Kind, ev.Summary = notify.Narrowed, narrowedText(n)
		if n.Approval.Status != store.Dropped {
			ev.Approval = n.Approval.ID
		}
		ev.Changes, ev.More = firstChanges(n.Dropped)
	case onChanges && total(r.ByKind) > 0:
		ev.Kind, ev.Summary = notify.Changes, plural.Of(total(r.ByKind), "change applied", "changes applied")
		ev.Changes, ev.More = firstChanges(sentChanges)
	default:
		return nil
	}
	if ev.Kind != notify.Narrowed {
		for _, n := range d.Narrowed {
			ev.Summary += "; " + narrowedText(n)
		}
	}
	if r.Err != nil {
		ev.Error, ev.Phase = r.Err.Error(), r.Phase
		if held != nil {
			ev.Summary += fmt.Sprintf("; %s held for approval in %s", plural.Of(len(held.Changes), "change", "changes"), held.ID)
			ev.Approval = cmp.Or(ev.Approval, held.ID)
		}
	}
	return ev
}

// heldBy is the approval the run made of what it held (a new one, else
// the one holding again what rejected approvals held), nil when none.
func heldBy(d *run.Decision) *store.Approval {
	if d.Created != nil {
		return d.Created
	}
	return d.HeldAgain
}

// narrowedText says what a run took out of an approval.
func narrowedText(n run.Narrowed) string {
	s := oneline.Narrowed(n.Approval.ID, len(n.Dropped), len(n.Approval.Changes))
	if n.Approval.Status == store.Dropped {
		s += ": the approval is dropped"
	}
	return s
}

// unrecordedEvent is the notification of an outcome the state directory
// could not record (err), in place of ev, the outcome's own (nil when it
// had none), whose approval and changes it keeps; changed says that the
// outcome changed the organization or an approval.
func unrecordedEvent(rec *store.Run, ev *notify.Event, changed bool, err error) *notify.Event {
	if ev != nil && ev.Kind == notify.Failure { // the failure stays what it was
		out := *ev
		out.Summary += "; and the state directory could not record it: " + err.Error()
		return &out
	}
	out := &notify.Event{Kind: notify.Failure, Org: rec.Org, Run: rec.ID, Time: time.Now().UTC(), Counts: rec.Changes,
		Phase: run.PhaseRecord, Error: err.Error()}
	unrecorded := "the state directory could not record it: its history and run record may lack it"
	switch {
	case ev != nil:
		out.Summary = ev.Summary + "; but " + unrecorded
		out.Changes, out.More = ev.Changes, ev.More
		if ev.Commands() != nil {
			out.Approval = ev.Approval
		}
	case changed:
		out.Summary = "the " + rec.Mode + " changed the organization, but " + unrecorded
	default:
		out.Summary = "the " + rec.Mode + " ended, but " + unrecorded
	}
	return out
}

// total counts the changes of counts by kind.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
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
		out[i] = oneline.Change(&changes[i])
	}
	return out, len(changes) - n
}
