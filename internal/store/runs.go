package store

import (
	"encoding/json"
	"time"
)

// Run results.
const (
	RunSuccess = "success"
	RunFailure = "failure"
	RunHeld    = "held" // applied what was safe; a safety limit held the rest for approval
)

// Run is the record of one organization's run.
type Run struct {
	ID    string    `json:"id"`
	Org   string    `json:"org"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Mode is "sync", "test-only" or "approve".
	Mode   string `json:"mode"`
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
	// Phase is where a failed run stopped: configuration, sources,
	// sign-in, read, plan, gate, apply or record.
	Phase string `json:"phase,omitempty"`
	// Changes counts the changes applied, by kind; Failures the entries
	// that failed, of which Unknown were sent without an answer (the
	// service may have applied them: the next run's read tells).
	Changes   map[string]int `json:"changes,omitempty"`
	Failures  int            `json:"failures,omitempty"`
	Unknown   int            `json:"unknown,omitempty"`
	Requests  int            `json:"requests"`
	Status429 int            `json:"status429"`
	// Approval is the approval the run created or updated, or applied.
	Approval string `json:"approval,omitempty"`
	// Held counts the changes the organization's pending approvals hold
	// after the run.
	Held int `json:"held,omitempty"`
	// Read is how the run read the organization, full or incremental
	// (planned from its snapshot), and ReadReason why (with incremental
	// runs on).
	Read       string `json:"read,omitempty"`
	ReadReason string `json:"readReason,omitempty"`
	// PeakMemoryMiB is the process's peak resident memory during the run,
	// MemoryLimitMiB what it may use (the container's limit, else the Go
	// memory limit; 0 when none is known), and NearMemoryLimit is set when
	// the peak came near it (a larger organization may be killed for
	// memory).
	PeakMemoryMiB   int  `json:"peakMemoryMiB,omitempty"`
	MemoryLimitMiB  int  `json:"memoryLimitMiB,omitempty"`
	NearMemoryLimit bool `json:"nearMemoryLimit,omitempty"`
}

// Duration is how long the run took.
func (r *Run) Duration() time.Duration { return r.End.Sub(r.Start) }

// Total is the number of changes applied.
func (r *Run) Total() int {
	n := 0
	for _, c := range r.Changes {
		n += c
	}
	return n
}

// AppendRun records a finished run.
func (d *Dir) AppendRun(r *Run) error { return d.runs.Append(runLine{RunsFormat, r}) }

// Runs returns the last n runs (all when n <= 0), oldest first; a record
// of a later format than RunsFormat is passed over.
func (d *Dir) Runs(n int) ([]Run, error) {
	var out []Run
	err := d.runs.Read(func(line []byte) {
		l := runLine{Run: &Run{}}
		if json.Unmarshal(line, &l) == nil && readable(l.FormatVersion, RunsFormat) == nil {
			out = append(out, *l.Run)
		}
	})
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out, err
}
