package umapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// pathPage returns the page index of a listing path .../users/{org}/{page}.
func pathPage(r *http.Request) int {
	seg := strings.Split(r.URL.Path, "/")
	n, _ := strconv.Atoi(seg[5])
	return n
}

func user(id string) umwire.User { return umwire.User{ID: id, Email: id + "@example.com"} }

// readAll drains a listing and returns the user ids seen.
func readAll(t *testing.T, c *Client) []string {
	t.Helper()
	var ids []string
	for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range p.Users {
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// A server that answers its last page (index 2) for every index beyond it
// and never says lastPage must not make the listing loop or repeat users.
func TestPagesStopOnRepeatedPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		header    bool // send X-Current-Page
		wantCalls int
	}{
		{"X-Current-Page below the page asked", true, 4},
		{"no header, same first user", false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				p := min(pathPage(r), 2)
				cur := -1
				if tc.header {
					cur = p
				}
				pageOf(w, cur, -1, false, user("u"+strconv.Itoa(p)))
			})
			c := f.client(t)
			got := readAll(t, c)
			if strings.Join(got, ",") != "u0,u1,u2" {
				t.Errorf("users = %v, want u0,u1,u2", got)
			}
			if f.count() != tc.wantCalls || c.Stats().PagesRepeated != 1 {
				t.Errorf("calls = %d (want %d), PagesRepeated = %d (want 1)", f.count(), tc.wantCalls, c.Stats().PagesRepeated)
			}
		})
	}
}

// A server that answers the same X-Current-Page twice is caught as well.
func TestPagesStopOnSameCurrentPageTwice(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		p := pathPage(r)
		pageOf(w, min(p, 1)+p/2, -1, false, user("u"+strconv.Itoa(p)))
	})
	// pages asked 0,1,2 answer current 0,1,2; asked 3 answers 1+1=2 again.
	got := readAll(t, f.client(t))
	if strings.Join(got, ",") != "u0,u1,u2" || f.count() != 4 {
		t.Errorf("users = %v after %d calls, want u0,u1,u2 after 4", got, f.count())
	}
}

// X-Page-Count ends a listing whose answers carry no lastPage, without a
// request for a page beyond it.
func TestPagesStopAtPageCount(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		p := pathPage(r)
		w.Header().Set(umwire.HeaderCurrentPage, strconv.Itoa(p))
		w.Header().Set(umwire.HeaderPageCount, "3")
		writeJSONBody(w, http.StatusOK, map[string]any{"result": "success", "users": []umwire.User{user("u" + strconv.Itoa(p))}})
	})
	if got := readAll(t, f.client(t)); len(got) != 3 || f.count() != 3 {
		t.Errorf("users = %v after %d calls, want 3 after 3", got, f.count())
	}
}

// X-Page-Count is "max pages for the criteria": a service may send the
// last page's index there. lastPage, which the answers carry, then says
// that more follow, and the listing reads on to the page that says
// lastPage; with or without read-ahead. A service that keeps lastPage
// false for ever is read at most to the index X-Page-Count.
func TestPageCountAsLastIndex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		endsAt    int // the page that says lastPage; -1: none does
		wantUsers string
		wantCalls int
	}{
		{"lastPage on the page after X-Page-Count-1", 2, "u0,u1,u2", 3},
		{"lastPage never true", -1, "u0,u1,u2", 3},
	} {
		for _, readAhead := range []int{-1, 4} {
			t.Run(fmt.Sprintf("%s, read-ahead %d", tc.name, readAhead), func(t *testing.T) {
				f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
					p := pathPage(r)
					pageOf(w, p, 2, p == tc.endsAt, user("u"+strconv.Itoa(p)))
				})
				got := readAll(t, f.client(t, func(c *Config) { c.ReadAhead = readAhead }))
				if strings.Join(got, ",") != tc.wantUsers || f.count() != tc.wantCalls {
					t.Errorf("users %v after %d calls, want %s after %d", got, f.count(), tc.wantUsers, tc.wantCalls)
				}
			})
		}
	}
}

// Every request carries the token, the API key, JSON headers and its own
// X-Request-Id (retries included).
func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	calls := 0
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if calls++; calls == 2 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		pageOf(w, pathPage(r), 3, pathPage(r) == 2, user("u"+strconv.Itoa(pathPage(r))))
	})
	readAll(t, f.client(t))
	seen := map[string]bool{}
	for _, r := range f.requests {
		id := r.Header.Get(umwire.HeaderRequestID)
		if id == "" || seen[id] {
			t.Errorf("X-Request-Id %q empty or repeated", id)
		}
		seen[id] = true
		for h, want := range map[string]string{"Authorization": "Bearer ey-token-1", umwire.HeaderAPIKey: "client-1",
			"Accept": "application/json", "Content-Type": "application/json"} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("%d requests, want 4 (3 pages and one retry)", len(seen))
	}
}

// A 401 refreshes the token once and retries; a second 401 is returned.
func TestUnauthorizedRefreshesOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		validToken string
		wantErr    bool
		wantCalls  int
	}{
		{"first token revoked", "Bearer ey-token-2", false, 2},
		{"every token refused", "never", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != tc.validToken {
					w.Header().Set("WWW-Authenticate", umwire.WWWAuthenticateInvalid)
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				writeJSONBody(w, http.StatusOK, umwire.UserInfo{Result: umwire.ResultSuccess, User: &umwire.User{Email: "a@b.c"}})
			})
			c := f.client(t)
			_, err := c.GetUser(context.Background(), "a@b.c", "")
			if (err != nil) != tc.wantErr || (err != nil && !IsUnauthorized(err)) {
				t.Fatalf("err = %v, want error %v (401)", err, tc.wantErr)
			}
			if f.count() != tc.wantCalls || f.tokenFetchs.Load() != 2 {
				t.Errorf("calls = %d, token fetches = %d; want %d and 2", f.count(), f.tokenFetchs.Load(), tc.wantCalls)
			}
		})
	}
}

// Concurrent first requests fetch one token between them.
func TestTokenSingleFlight(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, http.StatusOK, umwire.UserInfo{Result: umwire.ResultSuccess, User: &umwire.User{Email: "a@b.c"}})
	})
	c := f.client(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := f.tokenFetchs.Load(); n != 1 {
		t.Errorf("token fetches = %d, want 1", n)
	}
}

// 5xx answers are retried for idempotent actions up to MaxRetries; an
// action with a create step without option is sent once and reported
// ambiguous; a 429 is retried for both.
func TestActionRetrySafety(t *testing.T) {
	t.Parallel()
	safe := []umwire.Entry{{User: "a@b.c", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{Email: "a@b.c", FirstName: "A", LastName: "B", Option: umwire.OptionIgnoreIfExists}}}}}
	unsafe := []umwire.Entry{{User: "a@b.c", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{Email: "a@b.c", FirstName: "A", LastName: "B"}}}}}
	for _, tc := range []struct {
		name      string
		entries   []umwire.Entry
		status    int
		wantCalls int
	}{
		{"idempotent, 500", safe, http.StatusInternalServerError, 4},
		{"create without option, 500", unsafe, http.StatusInternalServerError, 1},
		{"create without option, 429", unsafe, http.StatusTooManyRequests, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(umwire.HeaderRetryAfter, "0")
				writeJSONBody(w, tc.status, umwire.ErrorBody{Result: "error"})
			})
			c := f.client(t)
			_, err := c.Action(context.Background(), tc.entries, ActionOptions{})
			if StatusOf(err) != tc.status || f.count() != tc.wantCalls {
				t.Errorf("err = %v after %d calls; want status %d after %d", err, f.count(), tc.status, tc.wantCalls)
			}
			if got, want := IsAmbiguous(err), tc.status >= 500; got != want {
				t.Errorf("IsAmbiguous = %v, want %v", got, want)
			}
		})
	}
	if Idempotent(unsafe) || !Idempotent(safe) {
		t.Error("Idempotent misjudges the create option")
	}
	group := func(s umwire.Step) []umwire.Entry { return []umwire.Entry{{UserGroup: "G", Do: []umwire.Step{s}}} }
	for _, tc := range []struct {
		entries []umwire.Entry
		want    bool
	}{
		{group(umwire.Step{CreateUserGroup: &umwire.UserGroupInfo{Option: umwire.OptionIgnoreIfExists}}), true},
		{group(umwire.Step{CreateUserGroup: &umwire.UserGroupInfo{}}), false},         // the second gets error.usergroup.already_exists
		{group(umwire.Step{DeleteUserGroup: &umwire.DeleteUserGrp{}}), false},         // the second gets error.usergroup.not_found
		{group(umwire.Step{Add: &umwire.Membership{Users: []string{"a@b.c"}}}), true}, // contract 3
	} {
		if got := Idempotent(tc.entries); got != tc.want {
			t.Errorf("Idempotent(%+v) = %v, want %v", tc.entries[0].Do[0], got, tc.want)
		}
	}
}

// A request blocked on a slow server returns promptly with the context's
// error when it is cancelled.
func TestCancellation(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := f.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.GetUser(ctx, "a@b.c", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %s", d)
	}
}

// A limiter wait that would outlast the deadline fails at once instead of
// sending late.
func TestRateWaitPastDeadline(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, http.StatusOK, umwire.UserInfo{Result: umwire.ResultSuccess, User: &umwire.User{Email: "a@b.c"}})
	})
	c := f.client(t, func(cfg *Config) { cfg.ReadLimit, cfg.LimitWindow = 1, time.Hour })
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.GetUser(ctx, "a@b.c", "")
	if !errors.Is(err, context.DeadlineExceeded) || f.count() != 1 {
		t.Errorf("err = %v after %d calls, want DeadlineExceeded after 1", err, f.count())
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	now := time.Now()
	resp := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set(umwire.HeaderRetryAfter, retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	check := func(name string, d, lo, hi time.Duration) {
		if d < lo || d > hi {
			t.Errorf("%s: wait %s, want in [%s, %s]", name, d, lo, hi)
		}
	}
	check("429 seconds", backoff(time.Second, time.Minute, 0, resp(429, "7")), 7*time.Second, 7700*time.Millisecond)
	date := now.Add(10 * time.Second).UTC().Format(http.TimeFormat)
	check("429 HTTP date", backoff(time.Second, time.Minute, 0, resp(429, date)), 8*time.Second, 11*time.Second)
	// Repeated 429s back off exponentially too, Retry-After being the least wait.
	check("429 seconds, attempt 5", backoff(time.Second, time.Minute, 5, resp(429, "1")), 16*time.Second, 32*time.Second)
	check("429 without Retry-After, attempt 2", backoff(time.Second, time.Minute, 2, resp(429, "")), 2*time.Second, 4*time.Second)
	check("500 attempt 0", backoff(time.Second, time.Minute, 0, resp(500, "")), 500*time.Millisecond, time.Second)
	check("500 attempt 3", backoff(time.Second, time.Minute, 3, resp(500, "")), 4*time.Second, 8*time.Second)
	check("capped", backoff(time.Second, time.Minute, 40, nil), 30*time.Second, time.Minute)
	if d := parseRetryAfter("soon", now); d != 0 {
		t.Errorf("unreadable Retry-After = %s, want 0", d)
	}
}

// Pages read ahead come out in order, with at most ReadAhead requests
// beyond the page being handed over, and breaking out stops the reading.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	const pages, ahead = 30, 3
	var mu sync.Mutex
	inFlight, peak := 0, 0
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		p := pathPage(r)
		time.Sleep(time.Duration(p*7%5) * time.Millisecond) // answers overtake each other
		mu.Lock()
		inFlight--
		mu.Unlock()
		pageOf(w, p, pages, p == pages-1, user("u"+strconv.Itoa(p)))
	})
	c := f.client(t, func(cfg *Config) { cfg.ReadAhead = ahead })
	var got []int
	for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Page)
		if p.Users[0].ID != "u"+strconv.Itoa(p.Page) {
			t.Fatalf("page %d holds %s", p.Page, p.Users[0].ID)
		}
	}
	for i, p := range got {
		if p != i {
			t.Fatalf("pages out of order: %v", got)
		}
	}
	if len(got) != pages || f.count() != pages || peak > ahead {
		t.Errorf("%d pages, %d requests, peak %d in flight; want %d, %d, <= %d", len(got), f.count(), peak, pages, pages, ahead)
	}
	before := f.count()
	for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
		if err != nil || p.Page == 4 {
			break
		}
	}
	f.srv.Close() // waits for every request that reached the server
	if n := f.count() - before; n > 5+ahead {
		t.Errorf("breaking after page 4 sent %d requests, want at most %d", n, 5+ahead)
	}
}

// OrgUsersFrom continues from a page the caller read, without asking for
// it again.
func TestOrgUsersFrom(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		p := pathPage(r)
		pageOf(w, p, 6, p == 5, user("u"+strconv.Itoa(p)))
	})
	c := f.client(t)
	first, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for p, err := range c.OrgUsersFrom(context.Background(), first, OrgUsersOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.Users[0].ID)
	}
	if strings.Join(ids, ",") != "u0,u1,u2,u3,u4,u5" || f.count() != 6 {
		t.Errorf("pages %v after %d requests, want u0..u5 after 6", ids, f.count())
	}
}
