package run

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

// TestUnmatchedReportCellsAreNotFormulas replays finding 6 of issue 33 on
// policy.reportFile: an unmatched user whose fields and groups start
// with =, +, - or @ is written as text a spreadsheet does not evaluate.
func TestUnmatchedReportCellsAreNotFormulas(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "unmatched.csv")
	u := reconcile.User{Type: reconcile.FederatedID, Email: "=1+2@example.com", FirstName: "+Ann", LastName: "-Lee", Country: "US",
		Groups: []string{"=SUM(1+2)", "Design"}}
	if err := writeUnmatchedReport(path, reconcile.UsersOf(u), "policy.reportFile"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %q, %v", rows, err)
	}
	want := []string{"'=1+2@example.com", "", "", "federatedID", "'+Ann", "'-Lee", "US", "'=SUM(1+2),Design"}
	if strings.Join(rows[1], "|") != strings.Join(want, "|") {
		t.Errorf("row %q, want %q", rows[1], want)
	}
}
