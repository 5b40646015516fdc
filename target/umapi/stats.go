package umapi

import (
	"maps"
	"sync"
)

// Endpoint names used in Stats and APIError.
const (
	EndpointToken        = "token"         // either token endpoint (contract 1)
	EndpointOrgUsers     = "org-users"     // 1. GET /users/{orgId}/{page}
	EndpointGroupUsers   = "group-users"   // 2. GET /users/{orgId}/{page}/{group}
	EndpointUser         = "user"          // 3. GET /organizations/{orgId}/users/{user}
	EndpointAction       = "action"        // 4. POST /action/{orgId}
	EndpointInvites      = "invites"       // 5. GET /{orgId}/invites/
	EndpointUserInvites  = "user-invites"  // 5. GET /organizations/{orgId}/invites/{email}
	EndpointResendInvite = "resend-invite" // 5. POST /{orgId}/invites/{email}
	EndpointRevokeInvite = "revoke-invite" // 5. DELETE /{orgId}/invites/{email}
	EndpointProducts     = "products"      // 6. GET /{orgId}/products/
	EndpointAllUsers     = "all-users"     // 7. GET /{orgId}/users
	EndpointGroups       = "groups"        // GET /groups/{orgId}/{page}: user groups and product profiles
	StatusTransportError = 0               // status key of attempts that got no answer
)

// Stats counts what a Client sent. Every HTTP attempt counts once.
type Stats struct {
	// Requests counts attempts by endpoint name and HTTP status; status 0
	// counts attempts that got no answer (dropped connection, timeout).
	Requests map[string]map[int]int
	// TooManyRequests counts 429 answers.
	TooManyRequests int
	// Retries counts attempts beyond the first of a request (after a 429,
	// a 5xx, a transport error, or a 401 that refreshed the token).
	Retries int
	// PagesRepeated counts listings stopped because the server answered a
	// page already seen (a page index beyond the last page).
	PagesRepeated int
}

// Total returns the number of attempts across all endpoints.
func (s Stats) Total() int {
	n := 0
	for _, byStatus := range s.Requests {
		for _, c := range byStatus {
			n += c
		}
	}
	return n
}

// Since returns the attempts counted after before, a Stats of the same
// client taken earlier: what one run of a long-lived client did.
func (s Stats) Since(before Stats) Stats {
	out := Stats{
		Requests:        map[string]map[int]int{},
		TooManyRequests: s.TooManyRequests - before.TooManyRequests,
		Retries:         s.Retries - before.Retries,
		PagesRepeated:   s.PagesRepeated - before.PagesRepeated,
	}
	for ep, byStatus := range s.Requests {
		for status, n := range byStatus {
			if d := n - before.Requests[ep][status]; d > 0 {
				if out.Requests[ep] == nil {
					out.Requests[ep] = map[int]int{}
				}
				out.Requests[ep][status] = d
			}
		}
	}
	return out
}

// counters is the concurrency-safe store behind Client.Stats.
type counters struct {
	mu sync.Mutex
	s  Stats
}

// attempt counts one HTTP attempt at endpoint (status 0: no answer).
func (c *counters) attempt(endpoint string, status int, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.s.Requests == nil {
		c.s.Requests = map[string]map[int]int{}
	}
	if c.s.Requests[endpoint] == nil {
		c.s.Requests[endpoint] = map[int]int{}
	}
	c.s.Requests[endpoint][status]++
	if status == 429 {
		c.s.TooManyRequests++
	}
	if retry {
		c.s.Retries++
	}
}

// pageRepeated counts a listing stopped at a repeated page.
func (c *counters) pageRepeated() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.PagesRepeated++
}

// snapshot returns a deep copy of the counters.
func (c *counters) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.s
	out.Requests = make(map[string]map[int]int, len(c.s.Requests))
	for ep, byStatus := range c.s.Requests {
		out.Requests[ep] = maps.Clone(byStatus)
	}
	return out
}
