package statuspage

import (
	"fmt"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// The states of an organization's banner.
const (
	StateFailing  = "failing"  // its last run failed (red)
	StateHeld     = "held"     // changes wait for approval (amber)
	StateRejected = "rejected" // changes held were rejected since its last run: the next holds those still asked for again (amber)
	StateInSync   = "in sync"  // none of these (green)
	StateNoRun    = "no run"   // nothing recorded yet
)

// BannerLine is one organization's line of the page's banner.
type BannerLine struct {
	Org string `json:"org"`
	// State is failing (its last run failed), held (changes of it wait
	// for approval) or in sync; a failing organization may hold changes
	// too (Held is set).
	State string `json:"state"`
	// LastSuccess is when its last run that did not fail ended (zero:
	// none is recorded).
	LastSuccess time.Time `json:"lastSuccess,omitzero"`
	// FailingSince is when the first of the failed runs since then
	// started, zero when its last run did not fail; Why is the last
	// failure's phase and error.
	FailingSince time.Time `json:"failingSince,omitzero"`
	Why          string    `json:"why,omitempty"`
	// Held are its pending approvals, oldest first; HeldChanges counts
	// their changes, HeldSince is when the oldest was held.
	Held        []string  `json:"heldApprovals,omitempty"`
	HeldChanges int       `json:"heldChanges,omitempty"`
	HeldSince   time.Time `json:"heldSince,omitzero"`
	// Rejected are the approvals rejected since its last run: their
	// changes were not sent, and its next run holds again those the
	// sources still ask for.
	Rejected []string `json:"rejectedApprovals,omitempty"`
}

// Failing reports whether the organization's last run failed.
func (b BannerLine) Failing() bool { return !b.FailingSince.IsZero() }

// Holding reports whether changes of the organization wait for approval.
func (b BannerLine) Holding() bool { return len(b.Held) > 0 }

// Rejecting reports whether approvals of the organization were rejected
// since its last run, none pending: it is not in sync until its next run.
func (b BannerLine) Rejecting() bool { return b.State == StateRejected }

// HeldWhat says how many changes wait, in how many approvals.
func (b BannerLine) HeldWhat() string {
	return fmt.Sprintf("%s held for approval", plural.Of(b.HeldChanges, "change", "changes"))
}

// Banner is, for each organization of runs (oldest first) and of the
// pending approvals, in the order they first ran: its last success and,
// when its last run failed, since when and why; the approvals that hold
// its changes, and those rejected since its last run; and its state.
// Runs are its syncs, applies and approves: a rejection or an invite
// resent or revoked says nothing of whether it syncs.
func Banner(runs []store.Run, pending []store.Approval) []BannerLine {
	var out []BannerLine
	at := map[string]int{}
	line := func(org string) *BannerLine {
		i, ok := at[org]
		if !ok {
			i, at[org] = len(out), len(out)
			out = append(out, BannerLine{Org: org})
		}
		return &out[i]
	}
	for _, r := range runs {
		b := line(r.Org)
		if !planned(&r) { // a decision that planned nothing says nothing of the organization's state
			if r.Mode == changecontrol.ModeReject && r.Result == store.RunSuccess {
				b.Rejected = append(b.Rejected, r.Approval)
			}
			continue
		}
		b.Rejected = nil
		if r.Result != store.RunFailure {
			b.LastSuccess, b.FailingSince, b.Why = r.End, time.Time{}, ""
			continue
		}
		if b.FailingSince.IsZero() {
			b.FailingSince = r.Start
		}
		b.Why = r.Error
		if r.Phase != "" {
			b.Why = r.Phase + ": " + r.Error
		}
	}
	for _, a := range pending { // oldest first
		b := line(a.Org)
		if len(b.Held) == 0 {
			b.HeldSince = a.Created
		}
		b.Held = append(b.Held, a.ID)
		b.HeldChanges += len(a.Changes)
	}
	for i := range out {
		out[i].State = out[i].state()
	}
	return out
}

// planned reports whether run r planned its organization (a sync, an
// apply, an approve): such runs alone say whether it is failing or in
// sync, a rejection or an invite resent or revoked does not.
func planned(r *store.Run) bool {
	switch r.Mode {
	case changecontrol.ModeReject, changecontrol.ModeResend, changecontrol.ModeRevoke:
		return false
	}
	return true
}

// state is the banner line's state.
func (b *BannerLine) state() string {
	switch {
	case b.Failing():
		return StateFailing
	case b.Holding():
		return StateHeld
	case len(b.Rejected) > 0:
		return StateRejected
	case !b.LastSuccess.IsZero():
		return StateInSync
	}
	return StateNoRun
}

// Decided says what an approval decided lately did: "approved and
// applied 3", "rejected 8; held again in approval 0a1b2c3d", "dropped 2
// (no longer asked for)"; runs are the page's run records, where the
// approve's own says what it applied.
func Decided(a store.Approval, runs []store.Run) string {
	dropped := 0
	for _, n := range a.Narrowed {
		dropped += len(n.Dropped)
	}
	switch a.Status {
	case store.Approved:
		return "approved and applied " + plural.Of(applied(a, runs), "change", "changes")
	case store.Rejected:
		s := "rejected " + plural.Of(len(a.Changes), "change", "changes")
		if a.HeldAgain != "" {
			return s + "; the next sync held those still asked for again, in approval " + a.HeldAgain
		}
		return s + "; the next sync holds those the sources still ask for again, in a new approval"
	case store.Dropped:
		return "dropped: its " + plural.Of(dropped, "change is", "changes are") + " no longer asked for by the sources"
	}
	if dropped > 0 {
		return fmt.Sprintf("%s; %s dropped, no longer asked for", plural.Of(len(a.Changes), "change", "changes")+" still held",
			plural.Of(dropped, "change", "changes"))
	}
	return plural.Of(len(a.Changes), "change", "changes") + " held"
}

// applied is how many changes approving a applied: its approve run's
// count when the page has it, else the changes it held.
func applied(a store.Approval, runs []store.Run) int {
	for i := len(runs) - 1; i >= 0; i-- {
		if r := &runs[i]; r.Approval == a.ID && r.Mode == "approve" && r.Result != store.RunFailure {
			return r.Total()
		}
	}
	return len(a.Changes)
}
