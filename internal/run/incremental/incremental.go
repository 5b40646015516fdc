// Package incremental runs an organization from its snapshot
// (internal/snapshot) between full reads. Begin decides whether a run
// reads the whole organization or plans from the snapshot, and says why;
// Read gives the run its current state either way (keeping a full read as
// the next snapshot's start); while a real run sends its plan, Sending
// records every change the service confirmed into the snapshot, and stops
// the run's sending at the first answer that shows the snapshot wrong (a
// user it has is not found, a user it lacks exists already, a group it
// has is not found): the run that follows (Switch) reads the whole
// organization, and plans and sends again.
//
// Any doubt means a full read: the first run, the snapshot missing,
// damaged, of another format version, organization or service, older
// than the configured interval, read by group for other groups than the
// run needs, or a run that stopped between sending changes and recording
// them. A damaged snapshot is a warning, never a failure. A change is
// recorded only once the service confirmed it, and a run that sent a
// request without an answer leaves the snapshot to be read fully next
// time: the snapshot never holds more than the organization, and what a
// run does not know it never assumes.
package incremental

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
)

// Kind is how a run reads the organization.
type Kind string

// The kinds of run.
const (
	Full        Kind = "full"        // the whole organization is read
	Incremental Kind = "incremental" // planned from the snapshot; the organization listing is not read
)

// DefaultFullEvery is how often a full read is made by default.
const DefaultFullEvery = 24 * time.Hour

// Settings say how one organization runs incrementally.
type Settings struct {
	Store *snapshot.Store
	// Org is the organization's name in the configuration: its snapshot's
	// name. OrgID is its id, kept in the snapshot for messages.
	Org, OrgID string
	// Fingerprint identifies the organization and service
	// (snapshot.Fingerprint): a snapshot with another is not used.
	Fingerprint string
	// FullEvery is the longest time between full reads; default
	// DefaultFullEvery.
	FullEvery time.Duration
	// Full asks for a full read whatever the snapshot (--full).
	Full bool
	// Clock tells the time; default time.Now.
	Clock func() time.Time
}

// Run is one organization's run: how it reads and why, and the snapshot
// it plans from (incremental) or the full read it keeps as the next
// snapshot.
type Run struct {
	s      Settings
	need   reconcile.ReadNeeds
	kind   Kind
	reason string
	warn   bool
	snap   *snapshot.Snapshot
	// stamp is the snapshot file as it was when the run began: a run
	// records nothing when another run replaced it since (Send).
	stamp string
}

// Begin decides how organization s.Org's run reads for need, loading its
// snapshot (without its lock: a run that sends takes it then, see Send).
func Begin(s Settings, need reconcile.ReadNeeds) *Run {
	if s.FullEvery <= 0 {
		s.FullEvery = DefaultFullEvery
	}
	if s.Clock == nil {
		s.Clock = time.Now
	}
	r := &Run{s: s, need: need, kind: Full}
	r.stamp, _ = s.Store.Stamp(s.Org)
	if s.Full {
		r.reason = "--full asks for it"
		return r
	}
	if note, sending, err := s.Store.Sending(s.Org); err != nil || sending {
		r.reason = fmt.Sprintf("a run stopped between sending changes and recording them in the snapshot (%s)", note)
		if err != nil {
			r.reason, r.warn = fmt.Sprintf("the snapshot's sending marker cannot be read: %v", err), true
		}
		return r
	}
	snap, err := s.Store.Load(s.Org)
	if err != nil {
		r.reason, r.warn = loadProblem(err)
		return r
	}
	if r.reason = r.doubt(snap); r.reason == "" {
		r.kind, r.snap = Incremental, snap
		age := s.Clock().Sub(snap.FullRead)
		r.reason = fmt.Sprintf("last full read %s ago, next in %s", Approx(age), Approx(s.FullEvery-age))
	}
	return r
}

// loadProblem says why a snapshot that did not load is not used, and
// whether that is a problem to warn about.
func loadProblem(err error) (string, bool) {
	switch {
	case errors.Is(err, snapshot.ErrMissing):
		return "first run with incremental runs: no snapshot of this organization yet", false
	case errors.Is(err, snapshot.ErrFormat):
		return fmt.Sprintf("the snapshot is of another format version of orgsync (%v)", err), false
	}
	return fmt.Sprintf("the snapshot cannot be read (%v); the full read makes a new one", err), true
}

// doubt says why snap cannot answer the run, "" when it can.
func (r *Run) doubt(snap *snapshot.Snapshot) string {
	age := r.s.Clock().Sub(snap.FullRead)
	switch {
	case snap.Fingerprint != r.s.Fingerprint:
		return fmt.Sprintf("the snapshot is of another organization or service (organization %s): the target's orgId or baseURL changed", snap.Org)
	case snap.Doubt != "":
		return snap.Doubt
	case age < 0:
		return "the last full read is dated later than now: the clock changed"
	case age >= r.s.FullEvery:
		return fmt.Sprintf("last full read %s ago; incremental.fullEvery is %s", Approx(age), Approx(r.s.FullEvery))
	case snap.ByGroup && r.need.AllUsers:
		return "the last full read read only the managed groups' members, and the policy now needs every user of the organization"
	case snap.ByGroup && !covers(snap.ReadGroups, r.need.Groups):
		return "the managed groups changed since the last full read, which read only the members of those it had"
	case r.need.RevokeInvites && !snap.InvitesKnown:
		return "the policy now revokes invites, and the last full read did not read them"
	}
	return ""
}

// covers reports whether every group of need is among read (letter case
// aside).
func covers(read, need []string) bool {
	for _, g := range need {
		if !slices.ContainsFunc(read, func(r string) bool { return strings.EqualFold(r, g) }) {
			return false
		}
	}
	return true
}

// Kind is how the run reads.
func (r *Run) Kind() Kind { return r.kind }

// Reason says why the run reads as it does, e.g. "last full read 3h ago,
// next in 21h".
func (r *Run) Reason() string { return r.reason }

// Warn reports whether the reason is a problem to warn about (a snapshot
// that cannot be read).
func (r *Run) Warn() bool { return r.warn }

// Users counts the users of the snapshot the run plans from or keeps
// (0 before a full read).
func (r *Run) Users() int {
	if r.snap == nil {
		return 0
	}
	return r.snap.Users.Len()
}

// Approx writes a duration to the minute, e.g. 45m, 3h, 3h20m or 2d4h;
// under a minute, to the second (12s: "0m ago" says nothing).
func Approx(d time.Duration) string {
	if d < time.Minute-time.Second/2 {
		return fmt.Sprintf("%ds", max(0, d.Round(time.Second))/time.Second)
	}
	d = d.Round(time.Minute)
	days, hours, minutes := d/(24*time.Hour), d%(24*time.Hour)/time.Hour, d%time.Hour/time.Minute
	switch {
	case days >= 2:
		return fmt.Sprintf("%dd%dh", days, hours)
	case d < time.Hour:
		return fmt.Sprintf("%dm", minutes)
	case minutes == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dh%dm", d/time.Hour, minutes)
}
