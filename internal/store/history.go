package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Entry results.
const (
	ResultApplied  = "applied"   // the service applied the entry
	ResultFailed   = "failed"    // the service refused it (Code, Message say why)
	ResultTestOnly = "test-only" // sent with testOnly: validated, nothing changed
	// ResultNotSent: the run stopped (SIGTERM) before sending it; the next
	// run plans it again.
	ResultNotSent = "not-sent"
	// ResultUnknown: sent, and no answer said what the service did with
	// it (the connection dropped or timed out before the answer, a 5xx,
	// the run stopped while it waited): it may have applied it. The next
	// run's read of the organization settles it: it plans the change
	// again if it was not applied.
	ResultUnknown = "unknown"
	// ResultDropped: a held change a later run took out of its approval,
	// the sources no longer asking for it; nothing was sent.
	ResultDropped = "dropped"
	// ResultRejected: a held change whose approval was rejected; nothing
	// was sent.
	ResultRejected = "rejected"
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
	// Approval is the approval that released a held change, or that a
	// dropped change was taken out of; DecidedBy who approved it, and how
	// ("alice via orgsync approve").
	Approval  string `json:"approval,omitempty"`
	DecidedBy string `json:"decidedBy,omitempty"`
}

// AppendHistory adds entries to the history.
func (d *Dir) AppendHistory(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	lines, recs := make([]entryLine, len(entries)), make([]any, len(entries))
	for i := range entries {
		lines[i] = entryLine{HistoryFormat, &entries[i]}
		recs[i] = &lines[i]
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

// History returns the entries that pass f, oldest first; an entry of a
// later format than HistoryFormat is passed over.
func (d *Dir) History(f Filter) ([]Entry, error) {
	var out []Entry
	needle := f.needle()
	err := d.history.Read(func(line []byte) {
		if needle != nil && !bytes.Contains(bytes.ToLower(line), needle) {
			return // cannot be the user's: no need to decode it
		}
		l := entryLine{Entry: &Entry{}}
		if json.Unmarshal(line, &l) == nil && readable(l.FormatVersion, HistoryFormat) == nil && f.match(l.Entry) {
			out = append(out, *l.Entry)
		}
	})
	return out, err
}

// needle is what a line of the filter's user must contain, lower-cased,
// as JSON writes it, or nil when that cannot be told without decoding (no
// user, or one with a character JSON escapes).
func (f Filter) needle() []byte {
	u := strings.ToLower(f.User)
	if u == "" || strings.ContainsFunc(u, func(r rune) bool { return r < 0x20 || r >= 0x7f || strings.ContainsRune(`"\<>&`, r) }) {
		return nil
	}
	return []byte(`"user":"` + u + `"`)
}
