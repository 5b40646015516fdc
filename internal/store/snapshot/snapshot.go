// Package snapshot keeps, in the state directory (state.dir), one
// snapshot per organization: its users with their groups, its pending
// invites and the groups known to exist, as the last full read saw them and
// as the changes applied since left them. Incremental runs plan from it
// instead of reading the whole organization.
//
// A snapshot is one file, written atomically (a temporary file synced and
// renamed), in a compact binary format with a format version, the
// fingerprint of the organization and service it describes, and a checksum
// of its content: a file of another version, of another organization, or
// damaged is never taken for a snapshot. A lock file keeps two runs from
// updating one organization's snapshot at once, and a marker written
// before a run sends its first change and removed once the snapshot
// records them tells the next run that a run stopped in between. A
// snapshot holds what the organization listing shows of its users, never a
// secret.
package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

// Snapshot is one organization as orgsync last knew it.
type Snapshot struct {
	// Fingerprint identifies the organization and the service it was read
	// from (see Fingerprint); Org names them for messages.
	Fingerprint string
	Org         string
	// FullRead is when the full read the snapshot started from was made.
	FullRead time.Time
	// Saved is when it was last written.
	Saved time.Time
	// Doubt, when not empty, says why the snapshot cannot be trusted: the
	// next run reads the whole organization.
	Doubt string
	// ByGroup is set when the full read read only the members of
	// ReadGroups (and the desired users outside them, one by one): Users
	// are then not every user of the organization.
	ByGroup    bool
	ReadGroups []string
	// InvitesKnown is set when the full read read the pending invites:
	// Invites are then all of them (else only those sent since).
	InvitesKnown bool
	// Users are the organization's users, each with all its groups.
	Users reconcile.Users
	// Invites are the invites as the last read listed them (the expired
	// ones where it did) and as the run sent them since.
	Invites []reconcile.Invite
	// Groups are the groups known to exist: those some user belongs to
	// (Encode adds them), and those a read or a change showed to exist
	// with no member.
	Groups []string
}

// Fingerprint identifies an organization (its id) at a service (its base
// address): a snapshot belongs to the organization whose fingerprint it
// holds. It is a hash, so that nothing about the target configuration
// other than its identity can be read from it.
func Fingerprint(orgID, baseURL string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(orgID)) + "\x00" + strings.TrimRight(strings.TrimSpace(baseURL), "/")))
	return hex.EncodeToString(sum[:])
}
