package run

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
)

// TestTheUnmatchedReportReadsBackAsAUsersFile: policy.reportFile's report
// is a scope.usersFile as it is (the documented round trip), also for the
// users whose email or username starts with what a spreadsheet reads as
// a formula, which the report writes with a quote in front.
func TestTheUnmatchedReportReadsBackAsAUsersFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "unmatched.csv")
	users := []reconcile.User{
		{Type: reconcile.FederatedID, Email: "+ops@example.com", Groups: []string{"=SUM(1+2)"}},
		{Type: reconcile.FederatedID, Email: "-lee@example.com"},
		{Type: reconcile.FederatedID, Email: "=ann@example.com"},
		{Type: reconcile.FederatedID, Email: "bo@example.com", Username: "-bo", Domain: "example.com"},
	}
	if err := writeUnmatchedReport(path, reconcile.UsersOf(users...), "policy.reportFile"); err != nil {
		t.Fatal(err)
	}
	uf, err := config.ReadUsersFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"+ops@example.com", "-lee@example.com", "=ann@example.com", "-bo", "bo@example.com"}
	if got := slices.Sorted(maps.Keys(uf.Users)); !slices.Equal(got, slices.Sorted(slices.Values(want))) || len(uf.Problems) != 0 {
		t.Errorf("the users file read back: %q (problems %v), want %q", got, uf.Problems, want)
	}
}
