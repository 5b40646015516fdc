package umapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// cutAfterHeaders answers with the headers of a 200 and half of body,
// then closes the connection: the answer is lost mid-body.
func cutAfterHeaders(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// TestBodyLostMidway: a connection dropped after the status line, in the
// middle of the body, is a dropped connection like any other: a listing
// page is asked again, and so is an idempotent action request; an action
// request that is not idempotent is not, and its error says it may have
// been applied.
func TestBodyLostMidway(t *testing.T) {
	t.Parallel()
	page, _ := json.Marshal(umwire.UsersPage{LastPage: true, Result: umwire.ResultSuccess, Users: []umwire.User{user("a"), user("b")}})
	answer, _ := json.Marshal(umwire.ActionResponse{Completed: 1, Result: umwire.ResultSuccess})
	var cut atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		body := page
		if r.Method == http.MethodPost {
			body = answer
		}
		if cut.Add(1)%2 == 1 { // every other answer is cut
			cutAfterHeaders(w, body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	c := f.client(t)
	p, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
	if err != nil || len(p.Users) != 2 {
		t.Fatalf("page %+v, %v: want 2 users after a second attempt", p, err)
	}
	add := []umwire.Entry{{User: "a@example.com", Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"G"}}}}}}
	if _, err := c.Action(context.Background(), add, ActionOptions{}); err != nil {
		t.Fatalf("idempotent action: %v, want it sent again", err)
	}
	if f.count() != 4 {
		t.Errorf("%d requests, want 4 (two cut, two answered)", f.count())
	}
	create := []umwire.Entry{{User: "n@example.com", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{Email: "n@example.com", FirstName: "N", LastName: "N"}}}}}
	if _, err := c.Action(context.Background(), create, ActionOptions{}); err == nil || !IsAmbiguous(err) || f.count() != 5 {
		t.Errorf("create without option: %v after %d requests, want an ambiguous error after 5", err, f.count())
	}
}

// TestTokenAnswerLostMidway: the token answer cut mid-body is asked for
// again.
func TestTokenAnswerLostMidway(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
		body, _ := json.Marshal(umwire.TokenResponse{TokenType: "bearer", AccessToken: "ey-token", ExpiresIn: 3600})
		if fetches.Add(1) == 1 {
			cutAfterHeaders(w, body)
			return
		}
		_, _ = w.Write(body)
	})
	mux.HandleFunc(umwire.BasePath+"/", func(w http.ResponseWriter, r *http.Request) { pageOf(w, 0, 1, true, user("a")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "client-1",
		ClientSecret: "s3cret-value", RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond})
	if _, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{}); err != nil || fetches.Load() != 2 {
		t.Errorf("%v after %d token requests, want a page after 2", err, fetches.Load())
	}
}
