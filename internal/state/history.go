package state

import (
	"encoding/json"
	"strings"
	"time"
)

// Entry results.
const (
	ResultApplied  = "applied"   // the service applied the entry
	ResultFailed   = "failed"    // the service refused it (Code, Message say why)
	ResultTestOnly = "test-only" // sent with testOnly: validated, nothing changed
)

// Entry is one applied change of a user or group, as the history keeps it.
type Entry struct {
	Run  string    `json:"run"`
	Time time.Time `json:"time"`
	Org  string    `json:"org"`
	// User is the user's key (email, or username@domain), or the group
	// of a group change.
	User string `json:"user"`
	Kind string `json:"kind"`
	// Steps are what was asked, one a step: "add Engineering",
	// "remove Design", "removeFromOrg".
	Steps   []string `json:"steps"`
	Result  string   `json:"result"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	// Reason says what asked for the change: the source and rule where
	// known, else the policy.
	Reason string `json:"reason,omitempty"`
	// Approval is the approval that released a held change.
	Approval string `json:"approval,omitempty"`
}

// AppendHistory adds entries to the history.
func (d *Dir) AppendHistory(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	recs := make([]any, len(entries))
	for i := range entries {
		recs[i] = &entries[i]
	}
	return d.history.Append(recs...)
}

// Filter selects history entries; a zero field selects all.
type Filter struct {
	User  string    // the user's key or email, any letter case
	Org   string    // the organization's name
	Since time.Time // entries at or after
}

// match reports whether e passes the filter.
func (f Filter) match(e *Entry) bool {
	return (f.User == "" || strings.EqualFold(f.User, e.User)) &&
		(f.Org == "" || f.Org == e.Org) &&
		(f.Since.IsZero() || !e.Time.Before(f.Since))
}

// History returns the entries that pass f, oldest first.
func (d *Dir) History(f Filter) ([]Entry, error) {
	var out []Entry
	err := d.history.Read(func(line []byte) {
		var e Entry
		if json.Unmarshal(line, &e) == nil && f.match(&e) {
			out = append(out, e)
		}
	})
	return out, err
}
