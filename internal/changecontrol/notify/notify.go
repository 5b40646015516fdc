// Package notify tells people about runs: an Event (a failed run, changes
// held for approval, a run with changes, a configuration that no longer
// loads) goes to every Notifier, webhooks (generic JSON, Slack, Microsoft
// Teams) and email over SMTP. A Dispatcher retries each with back-off and
// logs what still fails: a notifier never fails a sync.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/internal/util/termsafe"
	"github.com/orgsync/orgsync/internal/util/textcut"
)

// Kind is what an event reports.
type Kind string

// The kinds of events.
const (
	Failure     Kind = "failure"      // the run failed
	Held        Kind = "held"         // a safety limit held changes for approval
	Changes     Kind = "changes"      // the run applied changes (notify.onChanges)
	Narrowed    Kind = "narrowed"     // a run took changes the sources no longer ask for out of a pending approval
	ConfigError Kind = "config-error" // the configuration no longer loads; the last good one is used
	Approved    Kind = "approved"     // an approval was approved (its changes applied, or nothing left of it)
	Rejected    Kind = "rejected"     // an approval was rejected (its changes discarded)
)

// Event is one thing to tell about one organization's run.
type Event struct {
	Kind Kind   `json:"event"`
	Org  string `json:"org"`
	// Host is the machine (or pod) orgsync runs on.
	Host string    `json:"host,omitempty"`
	Run  string    `json:"run,omitempty"`
	Time time.Time `json:"time"`
	// Phase is where a failed run stopped (sources, sign-in, read, ...).
	Phase string `json:"phase,omitempty"`
	// Summary is one line saying what happened.
	Summary string         `json:"summary"`
	Counts  map[string]int `json:"counts,omitempty"`
	// Changes are the first changes, one line each; More counts the rest.
	Changes  []string `json:"changes,omitempty"`
	More     int      `json:"more,omitempty"`
	Error    string   `json:"error,omitempty"`
	Approval string   `json:"approval,omitempty"`
}

// Commands are the commands that decide the event's approval: approve
// and reject (none without an approval).
type Commands struct {
	Approve string `json:"approve"`
	Reject  string `json:"reject"`
}

// Commands returns the commands that decide e's approval, nil when it
// has none or the event tells its decision.
func (e *Event) Commands() *Commands {
	if e.Approval == "" || e.Kind == Approved || e.Kind == Rejected {
		return nil
	}
	return &Commands{Approve: "orgsync approve " + e.Approval, Reject: "orgsync reject " + e.Approval}
}

// MarshalJSON is the event as the generic webhook posts it: its fields
// and the commands that decide its approval.
func (e *Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		*plain
		Commands *Commands `json:"commands,omitempty"`
	}{(*plain)(e), e.Commands()})
}

// Title is the event's headline, e.g. "orgsync: changes held for approval
// in emea", on one line.
func (e *Event) Title() string {
	what := map[Kind]string{Failure: "run failed", Held: "changes held for approval", Changes: "changes applied",
		ConfigError: "configuration does not load", Narrowed: "approval narrowed", Approved: "approval applied", Rejected: "approval rejected"}[e.Kind]
	if what == "" {
		what = string(e.Kind)
	}
	title := fmt.Sprintf("orgsync: %s in %s", what, e.Org)
	if e.Host != "" {
		title += " (" + e.Host + ")"
	}
	return shown(title)
}

// Text is the event as plain text (message.text).
func (e *Event) Text() string {
	m := e.message()
	return m.text()
}

// message is what an event says, as the lines of plain text every
// format shows: each value of the event goes through shown, the one
// place where its control characters are escaped and its length
// bounded; each format then escapes the lines for its reader's markup.
type message struct {
	title string
	head  []string // the summary and the error
	// approval, approve and reject: the approval the event holds, and
	// the commands that decide it ("" without one).
	approval, approve, reject string
	changes                   []string // the first changes, then how many more
}

// message returns e's message.
func (e *Event) message() message {
	m := message{title: e.Title(), head: []string{shown(e.Summary)}}
	if e.Error != "" {
		m.head = append(m.head, "error: "+shown(e.Error))
	}
	if c := e.Commands(); c != nil {
		m.approval, m.approve, m.reject = shown(e.Approval), shown(c.Approve), shown(c.Reject)
	}
	for _, c := range e.Changes {
		m.changes = append(m.changes, shown(c))
	}
	if e.More > 0 {
		m.changes = append(m.changes, fmt.Sprintf("... and %d more", e.More))
	}
	return m
}

// decision says how to decide the approval, each command between q and
// every value escaped by esc; "" without an approval.
func (m *message) decision(q string, esc func(string) string) string {
	if m.approval == "" {
		return ""
	}
	return fmt.Sprintf("approval %s: review it with %s%s%[2]s, or discard it with %[2]s%[4]s%[2]s", esc(m.approval), q, esc(m.approve), esc(m.reject))
}

// text is the message as plain text (mail): the summary, the error, the
// approval's commands and the changes, one a line, without the title.
func (m *message) text() string {
	var b strings.Builder
	for _, l := range m.head {
		b.WriteString(l + "\n")
	}
	if d := m.decision("`", plain); d != "" {
		b.WriteString(d + "\n")
	}
	for _, l := range m.changes {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// plain leaves plain text as it is.
func plain(s string) string { return s }

// shown is a value of an event as one line of text: cut to
// textcut.Message bytes, its control characters and line breaks escaped
// (termsafe), so that no value forges a line of a mail or a message, or
// reaches a terminal that shows a mail as what it is not.
func shown(s string) string {
	return termsafe.String(textcut.Cut(s, textcut.Message), termsafe.Line)
}

// Notifier sends an event to one place.
type Notifier interface {
	// Name says where, without a secret (the webhook's host, not its URL).
	Name() string
	Send(ctx context.Context, e *Event) error
}

// Dispatcher sends events to every notifier, retrying each.
type Dispatcher struct {
	Notifiers []Notifier
	Log       *zap.Logger
	// Attempts is how often a notifier is tried (at least once); the waits
	// between grow from MinWait to MaxWait.
	Attempts         int
	MinWait, MaxWait time.Duration
}

// Send sends e to every notifier at once and returns when all are done.
// What still fails after the last attempt is logged.
func (d *Dispatcher) Send(ctx context.Context, e *Event) {
	var wg sync.WaitGroup
	for _, n := range d.Notifiers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := crash.Call(func() error { return d.sendOne(ctx, n, e) }); err != nil { // a panic (a bug) in a notifier costs its notification, not the daemon
				d.Log.Error("notification not sent", zap.String("notifier", n.Name()), zap.String("event", string(e.Kind)),
					zap.String("org", e.Org), zap.Error(err))
			}
		}()
	}
	wg.Wait()
}

// sendOne tries n up to Attempts times.
func (d *Dispatcher) sendOne(ctx context.Context, n Notifier, e *Event) error {
	var err error
	attempts := max(d.Attempts, 1)
	for attempt := range attempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (after %d attempts)", err, attempt)
			case <-time.After(Backoff(attempt-1, d.MinWait, d.MaxWait, rand.Float64())):
			}
		}
		if err = n.Send(ctx, e); err == nil {
			return nil
		}
		if attempt < attempts-1 {
			d.Log.Warn("notification failed, retrying", zap.String("notifier", n.Name()), zap.Int("attempt", attempt+1), zap.Error(err))
		}
	}
	return err
}

// Backoff is the wait before retry number attempt (0 the first): minWait
// doubled attempt times, at most maxWait, with jitter (r in [0,1)) taking
// up to half of it away. It is within [minWait/2, maxWait] for any
// attempt, however large.
func Backoff(attempt int, minWait, maxWait time.Duration, r float64) time.Duration {
	minWait, maxWait = max(minWait, time.Millisecond), max(maxWait, minWait, time.Millisecond)
	d := maxWait
	if attempt >= 0 && attempt < 62 && minWait <= maxWait>>min(attempt, 62) {
		d = minWait << attempt
	}
	if r < 0 || r >= 1 || r != r {
		r = 0
	}
	return d - time.Duration(float64(d/2)*r)
}
