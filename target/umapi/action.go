package umapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/target/umwire"
)

// ActionOptions are the options of an action request.
type ActionOptions struct {
	// TestOnly sends ?testOnly=true: the service validates every entry and
	// changes nothing; completedInTestMode counts the entries that would
	// succeed.
	TestOnly bool
}

// Action sends one action request of 1 to 10 entries (endpoint 4) and
// returns the service's answer. A whole-request failure (400
// error.command.malformed) is an *APIError.
//
// The request is retried after 429, 5xx, timeouts and dropped connections
// only when every entry is idempotent (contract 3): adds and removes are,
// removeFromOrg is, and a create step (of a user or a user group) is only
// when it carries an option; deleteUserGroup is not (see Idempotent). A
// request holding a step that is not is sent once more only after a 429
// (which the service answers before doing anything); after an ambiguous
// failure its error is returned as is and IsAmbiguous reports it.
func (c *Client) Action(ctx context.Context, entries []umwire.Entry, o ActionOptions) (*umwire.ActionResponse, error) {
	if len(entries) == 0 || len(entries) > umwire.MaxEntriesPerRequest {
		return nil, fmt.Errorf("action: %d entries, a request holds 1 to %d", len(entries), umwire.MaxEntriesPerRequest)
	}
	body, err := json.Marshal(entries)
	if err != nil {
		return nil, fmt.Errorf("action: encoding the entries: %w", err)
	}
	var q url.Values
	if o.TestOnly {
		q = url.Values{"testOnly": {"true"}}
	}
	var out umwire.ActionResponse
	_, err = c.getJSON(ctx, call{
		endpoint: EndpointAction, class: limitApp, method: http.MethodPost, unsafe: !Idempotent(entries),
		path: "/action/" + c.orgPath, query: q, body: body,
	}, &out)
	if err != nil {
		return nil, err
	}
	if err := checkNamed(&out); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkNamed refuses an answer that says entries failed (notCompleted,
// or a result other than success) without naming each in errors: which
// entries were done would be unknown, and none may be taken for done.
func checkNamed(r *umwire.ActionResponse) error {
	named := map[int]bool{}
	for _, e := range r.Errors {
		named[e.Index] = true
	}
	if r.NotCompleted > len(named) || (len(named) == 0 && r.Result != "" && r.Result != umwire.ResultSuccess) {
		return fmt.Errorf("%s: the answer (result %q) says %d entries were not completed and names %d: which were done is unknown",
			EndpointAction, r.Result, r.NotCompleted, len(named))
	}
	return nil
}

// Idempotent reports whether sending the entries twice has the effect of
// sending them once (contract 3): false when a create step (of a user or a
// user group) has no option, or a user group is deleted.
func Idempotent(entries []umwire.Entry) bool {
	for _, e := range entries {
		for _, s := range e.Do {
			if !repeatable(s) {
				return false
			}
		}
	}
	return true
}

// repeatable reports whether a step succeeds again once it has run.
func repeatable(s umwire.Step) bool {
	switch {
	case s.CreateUserGroup != nil:
		return s.CreateUserGroup.Option != ""
	case s.DeleteUserGroup != nil:
		return false
	}
	for _, cu := range []*umwire.CreateUser{s.AddVendorID, s.CreateEnterpriseID, s.CreateFederatedID} {
		if cu != nil {
			return cu.Option != ""
		}
	}
	return true
}

// IsAmbiguous reports whether a failed request may nevertheless have been
// applied: it was sent whole and got no answer that says what the
// service did (*NoAnswerError): none (a timeout, a dropped connection,
// the run stopped while it waited), a 5xx, or one cut off.
func IsAmbiguous(err error) bool {
	var na *NoAnswerError
	return errors.As(err, &na)
}

// EntryResult is what happened to one entry given to Batch.
type EntryResult struct {
	Index     int    // the entry's position in the slice given to Batch
	Request   int    // which request (0-based) carried it; -1 when not sent
	RequestID string // the entry's requestID, when it has one
	User      string // the entry's user or usergroup
	// Completed: every step ran (in test mode: would run).
	Completed bool
	// Step is the 0-based index of the failing step, -1 when no step failed.
	Step     int
	StepName string
	Code     string // errorCode of the failing step, or the whole-request failure's code
	Message  string
	Warnings []umwire.ActionWarning
	// Err is set when the request carrying the entry failed as a whole (or
	// was not sent); Ambiguous then says whether it may have been applied.
	Err       error
	Ambiguous bool
}

// BatchReport sums up a Batch call.
type BatchReport struct {
	Results   []EntryResult // one per entry, in the order given
	Requests  int           // action requests sent
	Completed int           // entries completed (in test mode: would complete)
	Failed    int           // entries not completed
	TestOnly  bool
}

// Batch sends any number of entries, at most 10 a request, in the order
// given, and reports for each entry what happened. The service's errors[]
// are mapped back to the entries by index (and requestID). A request that
// fails as a whole marks its entries failed with the code. The next
// request goes on after a failure of that request's own (400
// error.command.malformed, or a 5xx, 429 or lost answer that outlived the
// retries); any other failure (refused credentials, an expired
// certificate, a cancelled context) would fail every request alike, so
// Batch stops, returns it, and marks the remaining entries not sent.
// Entries on the same user in one request run in no guaranteed order
// (specification, rule 2): callers keep one entry per user.
func (c *Client) Batch(ctx context.Context, entries []umwire.Entry, o ActionOptions) (*BatchReport, error) {
	rep := &BatchReport{Results: make([]EntryResult, len(entries)), TestOnly: o.TestOnly}
	for i, e := range entries {
		rep.Results[i] = EntryResult{Index: i, Request: -1, Step: -1, RequestID: e.RequestID, User: cmp.Or(e.User, e.UserGroup)}
	}
	var stop error
	for start := 0; start < len(entries); start += umwire.MaxEntriesPerRequest {
		end := min(start+umwire.MaxEntriesPerRequest, len(entries))
		if stop == nil {
			stop = c.batchRequest(ctx, rep, entries, start, end, o)
		}
		if stop != nil {
			markFailed(rep.Results[start:end], stop, -1)
		}
	}
	for _, r := range rep.Results {
		if r.Completed {
			rep.Completed++
		} else {
			rep.Failed++
		}
	}
	return rep, stop
}

// batchRequest sends entries[start:end] and records the outcome. It
// returns an error only when the batch must stop.
func (c *Client) batchRequest(ctx context.Context, rep *BatchReport, entries []umwire.Entry, start, end int, o ActionOptions) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	reqNo := rep.Requests
	rep.Requests++
	results := rep.Results[start:end]
	for i := range results {
		results[i].Request = reqNo
	}
	resp, err := c.Action(ctx, entries[start:end], o)
	if err != nil {
		markFailed(results, err, reqNo)
		if ctx.Err() != nil || !ownFailure(err) {
			return err
		}
		c.log.Warn("action request failed", zap.Int("request", reqNo), zap.Error(err))
		return nil
	}
	applyResponse(results, entries[start:end], resp, c.log)
	return nil
}

// ownFailure reports whether an action request's failure is its own (its
// content was refused, or the service or network failed it) rather than one
// that every request of the same client would meet.
func ownFailure(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return true // no answer: timeout or dropped connection
	}
	switch {
	case ae.Endpoint != EndpointAction:
		return false // the token request failed
	case ae.StatusCode == http.StatusBadRequest:
		return ae.Code == umwire.ErrCommandMalformed
	}
	return ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500
}

// markFailed records a whole-request failure (or, with request -1, that
// the entries were not sent) on results.
func markFailed(results []EntryResult, err error, request int) {
	var ae *APIError
	errors.As(err, &ae)
	for i := range results {
		r := &results[i]
		r.Request, r.Completed, r.Err = request, false, err
		r.Ambiguous = request >= 0 && IsAmbiguous(err)
		if ae != nil {
			r.Code, r.Message = ae.Code, ae.Message
		}
	}
}

// applyResponse maps the answer's errors and warnings onto the results of
// the request's entries; entries without error completed (in test mode:
// would complete).
func applyResponse(results []EntryResult, entries []umwire.Entry, resp *umwire.ActionResponse, log *zap.Logger) {
	for i := range results {
		results[i].Completed = true
	}
	for _, e := range resp.Errors {
		i, ok := entryIndex(entries, e.Index, e.RequestID)
		if !ok {
			log.Warn("action error for an entry not in the request", zap.Int("index", e.Index), zap.String("code", e.ErrorCode))
			continue
		}
		r := &results[i]
		r.Completed, r.Step, r.Code, r.Message = false, e.Step, e.ErrorCode, e.Message
		if e.Step >= 0 && e.Step < len(entries[i].Do) {
			r.StepName = entries[i].Do[e.Step].Name()
		}
	}
	for _, w := range resp.Warnings {
		if i, ok := entryIndex(entries, w.Index, w.RequestID); ok {
			results[i].Warnings = append(results[i].Warnings, w)
		}
	}
}

// entryIndex finds the entry an error or warning is about: by index, unless
// the requestID it carries names another entry of the request.
func entryIndex(entries []umwire.Entry, index int, requestID string) (int, bool) {
	if index >= 0 && index < len(entries) && (requestID == "" || entries[index].RequestID == requestID) {
		return index, true
	}
	for i, e := range entries {
		if requestID != "" && e.RequestID == requestID {
			return i, true
		}
	}
	return 0, false
}
