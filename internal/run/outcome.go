package run

import (
	"errors"
	"time"

	"github.com/orgsync/orgsync/target/umapi"
)

// Phases of a run: where a failed one stopped (Result.Phase, and the run
// records').
const (
	PhaseConfig    = "configuration" // the configuration does not load, or the command line does not fit it
	PhaseSecret    = "secret"        // a secret of the target cannot be read
	PhaseSources   = "sources"       // a source cannot be read
	PhasePlan      = "plan"          // the scope or the plan cannot be made
	PhaseSignIn    = "sign-in"       // signing in failed: the authorization server refused the credentials, or could not be reached
	PhaseRead      = "read"          // the organization cannot be read (the service unreachable, an error)
	PhaseSavedPlan = "saved-plan"    // apply: the saved plan cannot be read, is too old, or is not what a fresh plan does
	PhaseGate      = "gate"          // the pending approvals cannot be read or written
	PhaseApply     = "apply"         // sending failed, or a safety limit failed the run
	PhaseRecord    = "record"        // applied, but the history or the run record cannot be written
)

// phaseError is an error of a phase of a run.
type phaseError struct {
	Phase string
	Err   error
}

func (e *phaseError) Error() string { return e.Err.Error() }
func (e *phaseError) Unwrap() error { return e.Err }

// InPhase marks err as an error of phase (nil stays nil).
func InPhase(phase string, err error) error {
	if err == nil {
		return nil
	}
	return &phaseError{Phase: phase, Err: err}
}

// PhaseOf is the phase err was marked with (InPhase), PhaseSources when
// it was not: what fails a run before it plans is a source.
func PhaseOf(err error) string { return PhaseOr(err, PhaseSources) }

// PhaseOr is the phase err was marked with (InPhase), else phase.
func PhaseOr(err error, phase string) string {
	var pe *phaseError
	if errors.As(err, &pe) {
		return pe.Phase
	}
	return phase
}

// Marked reports whether err was marked with a phase (InPhase).
func Marked(err error) bool {
	var pe *phaseError
	return errors.As(err, &pe)
}

// ServicePhase is the phase of err, an error of a call to the service in
// phase otherwise (read, apply): PhaseSignIn when it failed at the
// authorization server, whether it refused the credentials or could not
// be reached (the error says which), else otherwise.
func ServicePhase(err error, otherwise string) string {
	var ae *umapi.APIError
	var ue *umapi.UnreachableError
	switch {
	case umapi.IsAuthFailure(err):
		return PhaseSignIn
	case errors.As(err, &ae) && ae.Endpoint == umapi.EndpointToken, errors.As(err, &ue) && ue.Endpoint == umapi.EndpointToken:
		return PhaseSignIn
	}
	return otherwise
}

// RunID names the run started at start; its organizations share it.
func RunID(start time.Time) string { return start.UTC().Format("20060102T150405.000Z") }
