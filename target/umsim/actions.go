package umsim

import (
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// maxActionBody bounds an action request body; 10 entries of 10 steps fit
// in far less.
const maxActionBody = 1 << 20

// actions is endpoint 4.
func (s *Server) actions(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, "content-type must be application/json")
			return
		}
	}
	testOnly, err := boolParam(r, "testOnly", false)
	if err == nil {
		err = onlyParams(r, "testOnly")
	}
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		msg := "the request body could not be read"
		if errors.As(err, &tooBig) {
			msg = "the request body is larger than 1 MiB"
		}
		writeError(w, r, http.StatusBadRequest, umwire.ErrCommandMalformed, msg)
		return
	}
	entries, err := decodeActions(body)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrCommandMalformed, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.apply(entries, testOnly, gate.ClientID(r)))
}

// apply runs the entries in order under the lock, on behalf of the
// integration clientID; with testOnly every change is rolled back
// afterwards.
func (s *Server) apply(entries []entry, testOnly bool, clientID string) umwire.ActionResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	if testOnly {
		s.st.begin()
		defer s.st.rollback()
	}
	var resp umwire.ActionResponse
	for i := range entries {
		e := &entries[i]
		serr := e.err
		if serr == nil {
			serr = s.runEntry(e, clientID)
		}
		switch {
		case serr != nil:
			resp.NotCompleted++
			resp.Errors = append(resp.Errors, umwire.ActionError{
				Index: i, Step: serr.step, RequestID: e.requestID, User: e.user,
				Message: serr.msg, ErrorCode: serr.code,
			})
		case testOnly:
			resp.CompletedInTestMode++
		default:
			resp.Completed++
		}
	}
	switch resp.NotCompleted {
	case 0:
		resp.Result = umwire.ResultSuccess
	case len(entries):
		resp.Result = umwire.ResultError
	default:
		resp.Result = umwire.ResultPartial
	}
	return resp
}

// runEntry runs the steps of one well-formed entry until the first
// failure.
func (s *Server) runEntry(e *entry, clientID string) *stepError {
	if e.usergroup != "" {
		r := &groupRun{srv: s, st: s.st, e: e}
		r.resolve()
		return runSteps(e.steps, r.exec)
	}
	r := &userRun{srv: s, st: s.st, e: e, clientID: clientID}
	if err := r.resolve(); err != nil {
		return err
	}
	return runSteps(e.steps, r.exec)
}

// runSteps runs steps in order until the first failure, whose error gets
// the failing step's index.
func runSteps(steps []step, exec func(step) *stepError) *stepError {
	for i, st := range steps {
		if err := exec(st); err != nil {
			err.step = i
			return err
		}
	}
	return nil
}
