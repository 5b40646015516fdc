package run

import (
	"errors"
	"time"
)

// Phases of a run: where a failed one stopped (Result.Phase, and the run
// records').
const (
	PhaseConfig  = "configuration" // the configuration does not load, or the command line does not fit it
	PhaseSecret  = "secret"        // a secret of the target cannot be read
	PhaseSources = "sources"       // a source cannot be read
	PhasePlan    = "plan"          // the scope or the plan cannot be made
	PhaseSignIn  = "sign-in"       // the service refuses the credentials
	PhaseRead    = "read"          // the organization cannot be read (the service unreachable, an error)
	PhaseGate    = "gate"          // the pending approvals cannot be read or written
	PhaseApply   = "apply"         // sending failed, or a safety limit failed the run
	PhaseRecord  = "record"        // applied, but the history or the run record cannot be written
)

// PhaseError is an error of a phase of a run.
type PhaseError struct {
	Phase string
	Err   error
}

func (e *PhaseError) Error() string { return e.Err.Error() }
func (e *PhaseError) Unwrap() error { return e.Err }

// InPhase marks err as an error of phase (nil stays nil).
func InPhase(phase string, err error) error {
	if err == nil {
		return nil
	}
	return &PhaseError{Phase: phase, Err: err}
}

// PhaseOf is the phase err was marked with (InPhase), PhaseSources when
// it was not: what fails a run before it plans is a source.
func PhaseOf(err error) string { return phaseOr(err, PhaseSources) }

// phaseOr is the phase err was marked with (InPhase), else phase.
func phaseOr(err error, phase string) string {
	var pe *PhaseError
	if errors.As(err, &pe) {
		return pe.Phase
	}
	return phase
}

// RunID names the run started at start; its organizations share it.
func RunID(start time.Time) string { return start.UTC().Format("20060102T150405.000Z") }
