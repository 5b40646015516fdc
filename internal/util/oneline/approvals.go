package oneline

import (
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/internal/util/plural"
)

// The notes the safety gate adds to a plan about the approvals it
// respected, and what the logs and notifications say of them.

// changes says n changes in words.
func changes(n int) string { return plural.Of(n, "change", "changes") }

// HeldRejected is the plan's note of the n changes that rejected approvals
// (by id) held and the sources still ask for: held again as approval
// again, or, when again is "" (a dry or test-only run), held until a
// sync holds them again for approval.
func HeldRejected(rejected []string, n int, again string) string {
	if again == "" {
		return fmt.Sprintf("rejected approval %s: %s the sources still ask for, held; a sync holds them again for approval",
			strings.Join(rejected, ", "), changes(n))
	}
	return fmt.Sprintf("rejected approval %s: %s the sources still ask for, held again as approval %s", strings.Join(rejected, ", "), changes(n), again)
}

// Narrowed says that a run took dropped changes the sources no longer ask
// for out of approval id, which still holds kept.
func Narrowed(id string, dropped, kept int) string {
	return fmt.Sprintf("approval %s: %s no longer asked for by the sources, %s still held", id, changes(dropped), changes(kept))
}

// NarrowedNote is the plan's note of Narrowed.
func NarrowedNote(id string, dropped, kept int) string {
	return fmt.Sprintf("approval %s: %s no longer asked for by the sources, dropped from it; %s still held", id, changes(dropped), changes(kept))
}

// Quarantined is the plan's note of the n changes of the plan that pending
// approval id holds.
func Quarantined(id string, n int) string {
	return fmt.Sprintf("approval %s holds %s of the withheld changes until someone decides: orgsync approve %[1]s applies them, orgsync reject %[1]s discards them",
		id, changes(n))
}
