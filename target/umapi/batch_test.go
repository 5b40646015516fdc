package umapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

func addEntry(i int) umwire.Entry {
	return umwire.Entry{
		User: fmt.Sprintf("u%d@example.com", i), RequestID: fmt.Sprintf("r%d", i),
		Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"G"}}}, {Remove: &umwire.Membership{Group: []string{"H"}}}},
	}
}

// The batcher splits 25 entries into 10+10+5, maps each request's errors[]
// back to the caller's indexes (by index, or by requestID when the index
// disagrees), and marks every entry of a 400 request failed with its code.
func TestBatchMapping(t *testing.T) {
	t.Parallel()
	call := 0
	var sizes []int
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		var entries []umwire.Entry
		if err := json.NewDecoder(r.Body).Decode(&entries); err != nil {
			t.Error(err)
		}
		sizes = append(sizes, len(entries))
		call++
		switch call {
		case 1: // entry 3 fails at step 1; entry 7's error carries a wrong index but its requestID
			writeJSONBody(w, http.StatusOK, umwire.ActionResponse{Completed: 8, NotCompleted: 2, Result: umwire.ResultPartial,
				Errors: []umwire.ActionError{
					{Index: 3, Step: 1, RequestID: "r3", Message: "no such group", ErrorCode: umwire.ErrGroupNotFound},
					{Index: 9, Step: 0, RequestID: "r7", Message: "gone", ErrorCode: umwire.ErrUserNonexistent},
				}})
		case 2:
			writeJSONBody(w, http.StatusBadRequest, umwire.ErrorBody{Result: umwire.ErrCommandMalformed, Message: "bad"})
		default:
			writeJSONBody(w, http.StatusOK, umwire.ActionResponse{Completed: len(entries), Result: umwire.ResultSuccess})
		}
	})
	entries := make([]umwire.Entry, 25)
	for i := range entries {
		entries[i] = addEntry(i)
	}
	rep, err := f.client(t).Batch(context.Background(), entries, ActionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != "[10 10 5]" || rep.Requests != 3 {
		t.Fatalf("request sizes %v, Requests %d; want [10 10 5], 3", sizes, rep.Requests)
	}
	if rep.Completed != 13 || rep.Failed != 12 {
		t.Errorf("completed %d failed %d, want 13 and 12", rep.Completed, rep.Failed)
	}
	r3, r7 := rep.Results[3], rep.Results[7]
	if r3.Completed || r3.Step != 1 || r3.StepName != umwire.StepRemove || r3.Code != umwire.ErrGroupNotFound || r3.Request != 0 {
		t.Errorf("entry 3 = %+v", r3)
	}
	if r7.Completed || r7.Code != umwire.ErrUserNonexistent || !rep.Results[9].Completed {
		t.Errorf("entry 7 = %+v, entry 9 completed = %v", r7, rep.Results[9].Completed)
	}
	for i := 10; i < 20; i++ {
		r := rep.Results[i]
		if r.Completed || r.Code != umwire.ErrCommandMalformed || r.Request != 1 || r.Err == nil || r.Ambiguous {
			t.Errorf("entry %d = %+v, want failed with the 400's code", i, r)
		}
	}
	for i := 20; i < 25; i++ {
		if r := rep.Results[i]; !r.Completed || r.Request != 2 || r.Index != i || r.RequestID != fmt.Sprintf("r%d", i) {
			t.Errorf("entry %d = %+v, want completed in request 2", i, r)
		}
	}
}

// Refused credentials stop the batch: later entries are reported not sent.
func TestBatchStopsOnAuthFailure(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	entries := make([]umwire.Entry, 15)
	for i := range entries {
		entries[i] = addEntry(i)
	}
	rep, err := f.client(t).Batch(context.Background(), entries, ActionOptions{})
	if !IsForbidden(err) || f.count() != 1 || rep.Failed != 15 {
		t.Fatalf("err = %v, calls = %d, failed = %d; want 403, 1, 15", err, f.count(), rep.Failed)
	}
	if r := rep.Results[12]; r.Request != -1 || r.Err == nil {
		t.Errorf("entry 12 = %+v, want not sent", r)
	}
}
