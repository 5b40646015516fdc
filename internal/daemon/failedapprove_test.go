package daemon

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/store"
)

// TestFailedApprovePageSaysStillPending: an approve from the page that
// fails (the source cannot be read) answers a page whose heading says
// plainly that the approval is still pending, that approving failed and
// in which phase, as the command line says it; then why (the error,
// escaped), and the approval's state.
func TestFailedApprovePageSaysStillPending(t *testing.T) {
	t.Parallel()
	d, path, id := heldDaemon(t, opsPage(t))
	_, page := serveReq(d, http.MethodGet, "/", true)
	users := filepath.Join(filepath.Dir(path), "users.csv")
	if err := os.Rename(users, users+".away"); err != nil {
		t.Fatal(err)
	}
	code, body := serveReq(d, http.MethodPost, "/approvals/"+id+"/review", true, "csrf", csrfOf(t, page, "approvals/"+id+"/review"))
	want := `>Approval ` + id + ` is still pending: approving failed in phase sources</h1>`
	if code != http.StatusConflict || !strings.Contains(body, want) || !strings.Contains(body, `<pre id="error">sources[0] (csv users.csv): cannot read the CSV file`) ||
		!strings.Contains(body, "nothing of them is sent until then") || approval(t, d, id).Status != store.Pending {
		t.Errorf("a failed approve's page: %d, want the heading %s\n%s", code, want, body)
	}
}

// heldDaemon is a daemon of heldExample(extra) after its first run, which
// held removals in one approval: the daemon, its configuration's path
// and the approval's id.
func heldDaemon(t *testing.T, extra string) (*daemon, string, string) {
	t.Helper()
	path := heldExample(t, extra)
	d := newTestDaemon(t, setupOf(t, path, zap.NewNop()))
	d.runOnce(context.Background())
	pending := d.control.PendingApprovals()
	if len(pending) != 1 {
		t.Fatalf("%d approvals pending after the run, want 1", len(pending))
	}
	return d, path, pending[0].ID
}
