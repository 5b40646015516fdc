package simserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/orgsync/orgsync/target/umwire"
)

// Changes counts what the simulator was asked to change, whatever it
// answered: the requests that change something (action requests, invite
// resends and revokes; testOnly ones apart) and, among their steps, the
// destructive ones (a membership removed, a user removed from the
// organization, a user group deleted, an invite revoked).
type Changes struct {
	mu          sync.Mutex
	writes      int
	destructive int
	testOnly    int
}

// Writes, Destructive and TestOnly are the counts: requests that change
// something, their destructive steps, and testOnly action requests.
func (c *Changes) Writes() int      { return c.get(&c.writes) }
func (c *Changes) Destructive() int { return c.get(&c.destructive) }
func (c *Changes) TestOnly() int    { return c.get(&c.testOnly) }

func (c *Changes) get(n *int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *n
}

// Count returns h counting in c what each request asks to change.
func Count(h http.Handler) (http.Handler, *Changes) {
	c := &Changes{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.observe(r)
		h.ServeHTTP(w, r)
	}), c
}

// observe counts r, leaving its body for the simulator.
func (c *Changes) observe(r *http.Request) {
	path := r.URL.Path
	isAction := r.Method == http.MethodPost && strings.Contains(path, "/action/")
	isInvite := strings.Contains(path, "/invites/") && (r.Method == http.MethodPost || r.Method == http.MethodDelete)
	if !isAction && !isInvite {
		return
	}
	destructive := 0
	if r.Method == http.MethodDelete {
		destructive = 1 // an invite revoked
	}
	if isAction {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		destructive = destructiveSteps(body)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if isAction && r.URL.Query().Get("testOnly") == "true" {
		c.testOnly++
		return
	}
	c.writes++
	c.destructive += destructive
}

// destructiveSteps counts the destructive steps of an action request's
// entries (none when the body does not decode).
func destructiveSteps(body []byte) int {
	var entries []umwire.Entry
	if json.Unmarshal(body, &entries) != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		for _, s := range e.Do {
			if s.Remove != nil || s.RemoveFromOrg != nil || s.DeleteUserGroup != nil {
				n++
			}
		}
	}
	return n
}
