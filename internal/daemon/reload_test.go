package daemon

import (
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
)

func TestDaemonReloadKeepsTheLastGoodConfiguration(t *testing.T) {
	t.Parallel()
	path := example(t, "")
	d := newTestDaemon(t, setupOf(t, path, zap.NewNop()))
	j := d.job.Load()
	if got := d.reload(); got != j {
		t.Error("an unchanged file made a new Job (and new clients)")
	}
	setUnmatchedUsers(t, path, "sometimes")
	if got := d.reload(); got != j || !strings.Contains(d.status().ConfigProblem, "policy.unmatchedUsers") {
		t.Errorf("a broken file: job kept %v, problem %q", got == j, d.status().ConfigProblem)
	}
	wantMetrics(t, d, "orgsync_config_loaded 0", `orgsync_config_reloads_total{result="failure"} 1`)
	setUnmatchedUsers(t, path, "preserve")
	got := d.reload()
	if got == j || d.status().ConfigProblem != "" || d.cfg.Policy.UnmatchedUsers != "preserve" {
		t.Errorf("the fixed file: new job %v, problem %q", got != j, d.status().ConfigProblem)
	}
	// One registry: change control's metrics beside the runs'.
	wantMetrics(t, d, "orgsync_config_loaded 1", `orgsync_config_reloads_total{result="success"} 1`,
		fmt.Sprintf("orgsync_pending_approvals{org=%q} 0", got.OrgNames()[0]), "orgsync_run_panics_total 0")
}
