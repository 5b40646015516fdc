package run

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/memlimit"
)

// expectMemory notes what the run is expected to need at its peak now
// that it is planned (memlimit.Estimate), and warns when that comes near
// bound, what the process may use: before anything is sent, so that a
// run about to be killed for memory says so first.
func (p *OrgPlan) expectMemory(members, rows, changes int, bound uint64) {
	p.memory = memlimit.Usage{Bound: bound, Estimate: memlimit.Estimate(members, rows, changes)}
	if m := p.memory; m.EstimateNear() {
		p.log.Warn(fmt.Sprintf("this run is expected to need about %s at its peak (%d users in the organization, %d from the sources, %d changes to send), "+
			"%d%% of the %s this process may use: it may be killed for memory; give the container more memory, or sync fewer users a run (docs/deployment.md, Memory)",
			memlimit.MiB(m.Estimate), members, rows, changes, m.Percent(m.Estimate), memlimit.MiB(m.Bound)),
			zap.Uint64("expectedMemoryBytes", m.Estimate), zap.Uint64("memoryLimitBytes", m.Bound))
	}
}
