package reconcile

import (
	"context"
	"time"
)

// Desired is the desired state: every user the sources name, with target
// groups.
type Desired struct {
	Users Users
	// Complete must be set by the caller only when every source was read
	// in full. When it is false, or Users is empty, the plan holds no
	// destructive change: a failed or empty source never strips anybody.
	Complete bool
	// Held names, by user key (User.Key), groups that are not removed
	// from that user in this run although no source gives them: a source
	// could not confirm them (a mapped directory group missing from the
	// directory while another source names it). A removal it stops is
	// noted in the plan.
	Held map[string][]string
	// Scope limits the run; the zero Scope is every user.
	Scope Scope
}

// Current is the current state of the organization, as a Reader saw it.
type Current struct {
	// Users are the organization's users with all their groups, or, when
	// ByGroup, only the members of ReadNeeds.Groups (and the desired users
	// looked up one by one).
	Users Users
	// ByGroup is set when only the members of ReadNeeds.Groups were read.
	ByGroup bool
	// Invites are the pending invites and, where they can change the
	// plan, the expired ones (Invite.Expired).
	Invites []Invite
	// Missing are the groups of ReadNeeds.CheckGroups that do not exist.
	Missing []string
}

// Invite is one invite of an independent ID.
type Invite struct {
	Email    string    `json:"email"`
	LastSent time.Time `json:"lastSent"`
	// Expired is set for an invite the service no longer holds pending
	// (the user can no longer accept it), as its listing says.
	Expired bool `json:"expired,omitempty"`
}

// Reader reads the current state of the organization.
type Reader interface {
	ReadCurrent(ctx context.Context, need ReadNeeds) (*Current, error)
}
