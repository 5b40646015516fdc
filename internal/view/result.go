package view

import (
	"fmt"
	"io"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// Results writes each organization's Result, in order.
func Results(w io.Writer, res []*run.Result, multiOrg bool) {
	for _, r := range res {
		Result(w, r, multiOrg)
	}
}

// Result writes the outcome of an organization's applied plan (nothing
// when it has none), its lines prefixed with the organization's name when
// there are several: the requests, entries and failures, the entries a
// test-only run could not verify, each failure, and the approvals the run
// holds with what to do about them.
func Result(w io.Writer, r *run.Result, multiOrg bool) {
	if r == nil || r.Applied == nil {
		return
	}
	prefix := ""
	if multiOrg {
		prefix = r.Org.Name + ": "
	}
	verb := "applied"
	if r.Mode == run.TestOnly {
		verb = "validated by the service (test only, nothing changed)"
	}
	fmt.Fprintf(w, "%s%s: %s, %s, %s, %s; %s in all, %d answered 429, in %s\n",
		prefix, verb, plural.Of(r.Applied.Requests, "request", "requests"), plural.Of(r.Applied.Entries, "entry", "entries"),
		plural.Of(r.Applied.Invites, "invite operation", "invite operations"), plural.Of(len(r.Applied.Failures), "failure", "failures"),
		plural.Of(r.Stats.Total(), "API request", "API requests"), r.Stats.TooManyRequests, r.Elapsed.Round(1e6))
	if n := r.Applied.Unverified; n > 0 {
		fmt.Fprintf(w, "  %s unverified: they need a user or group that an earlier request creates, which a test-only run does not\n", plural.Of(n, "entry", "entries"))
	}
	for _, f := range r.Applied.Failures {
		if f.Unknown {
			fmt.Fprintf(w, "  unknown (the next run's read tells whether the service applied it): %s\n", f)
		} else {
			fmt.Fprintf(w, "  failed: %s\n", f)
		}
	}
	if r.Switched {
		fmt.Fprintf(w, "%sthe plan above (made from the snapshot) is not all that was sent: an answer contradicted the snapshot, so the run read the whole organization, planned again and sent the rest. What it sent:\n", prefix)
		_ = Plan(w, r.Plan)
	}
	for _, a := range r.Decision.Pending {
		fmt.Fprintf(w, "%sheld for approval: %s, %s (review it with orgsync approve %[2]s, or discard it with orgsync reject %[2]s)\n",
			prefix, a.ID, plural.Of(len(a.Changes), "change", "changes"))
	}
}
