package run

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umtarget"
)

// Reading is how an organization's run read the organization: Kind is
// full or incremental (planned from its snapshot), Reason why, when
// incremental runs are on (incremental.enabled).
type Reading struct {
	Kind   incremental.Kind `json:"kind"`
	Reason string           `json:"reason,omitempty"`
}

// String says it as a plan and the logs do, e.g. "incremental run: last
// full read 3h ago, next in 21h" or "full read: --full asks for it".
func (r Reading) String() string {
	what := "full read"
	if r.Kind == incremental.Incremental {
		what = "incremental run"
	}
	if r.Reason == "" {
		return what
	}
	return what + ": " + r.Reason
}

// reader reads an organization's current state for a run through t,
// the service's target, and says how in p.Read: the whole organization
// (fullRead), or from its snapshot between full reads (snapshots).
type reader interface {
	read(ctx context.Context, p *OrgPlan, t *umtarget.Target, need reconcile.ReadNeeds) (*reconcile.Current, error)
}

// readerOf is the reader of cfg's runs: from the snapshots with
// incremental runs on (full: every organization read in full all the
// same, --full), else in full.
func readerOf(cfg *config.Config, full bool) reader {
	if !cfg.Incremental.Enabled {
		return fullRead{}
	}
	return snapshots{dir: cfg.State.Dir, fullEvery: time.Duration(cfg.Incremental.FullEvery), full: full}
}

// fullRead reads the whole organization each run.
type fullRead struct{}

func (fullRead) read(ctx context.Context, p *OrgPlan, t *umtarget.Target, need reconcile.ReadNeeds) (*reconcile.Current, error) {
	p.Read = Reading{Kind: incremental.Full}
	return t.ReadCurrent(ctx, need)
}

// snapshots are the runs of organizations kept in snapshots, in the state
// directory (incremental runs): each organization's snapshot decides how
// its run reads (p.Read says which and why); an incremental run plans
// from it, a full one reads the organization and keeps what it read for
// the next snapshot. A real run records what the service confirmed in the
// snapshot as it sends (snapshotSending).
type snapshots struct {
	dir       string
	fullEvery time.Duration
	full      bool // every organization read in full (--full)
}

func (s snapshots) read(ctx context.Context, p *OrgPlan, t *umtarget.Target, need reconcile.ReadNeeds) (*reconcile.Current, error) {
	start := time.Now()
	r := incremental.Begin(incremental.Settings{Store: snapshot.Open(s.dir), Org: p.Org.Name, OrgID: p.Org.OrgID,
		Fingerprint: snapshot.Fingerprint(p.Org.OrgID, p.Org.BaseURL), FullEvery: s.fullEvery, Full: s.full}, need)
	p.inc, p.Read = &incrementalRun{Run: r}, Reading{Kind: r.Kind(), Reason: r.Reason()}
	fields := []zap.Field{zap.String("read", string(r.Kind())), zap.String("why", r.Reason())}
	if r.Kind() == incremental.Incremental {
		fields = append(fields, zap.Int("snapshotUsers", r.Users()), zap.Duration("snapshotLoad", time.Since(start).Round(time.Millisecond)))
	}
	if r.Warn() {
		p.log.Warn(p.Read.String(), fields...)
	} else {
		p.log.Info(p.Read.String(), fields...)
	}
	return r.Read(ctx, t, t)
}

// incrementalRun is an organization's run with its snapshot, and how to
// plan again from another current state (after a full read; planOrg sets
// it).
type incrementalRun struct {
	*incremental.Run
	diff func(p *OrgPlan, cur *reconcile.Current) (*reconcile.Plan, error)
}

// readAgain reads the whole organization of again, the plan that follows
// one whose sending an answer contradicting its snapshot ended (c), and
// says so in again.Read: the run that follows r (incremental.Run.Switch)
// reads it, and records what again sends.
func (r *incrementalRun) readAgain(ctx context.Context, again *OrgPlan, t *umtarget.Target, c *incremental.Contradiction) (*reconcile.Current, error) {
	next := &incrementalRun{Run: r.Switch(c), diff: r.diff}
	again.inc, again.Read = next, Reading{Kind: next.Kind(), Reason: next.Reason()}
	return next.Read(ctx, t, t)
}

// snapshotSending is a real run sending its plan through next, recording
// in the organization's snapshot what the service confirmed
// (incremental.Sending); an answer that contradicts the snapshot ends it
// when the run can go on from a full read (switchable).
type snapshotSending struct {
	s    *incremental.Sending
	run  *incrementalRun
	next reconcile.Sender
	log  *zap.Logger
}

// sending starts sending the plan of p's run through next (see
// incremental.Run.Send); it is to be finished.
func (r *incrementalRun) sending(p *OrgPlan, next reconcile.Sender, switchable bool) (*snapshotSending, error) {
	s, err := r.Send(p.Plan, switchable)
	if err != nil {
		return nil, err
	}
	return &snapshotSending{s: s, run: r, next: next, log: p.log}, nil
}

// send applies plan with o, recording what the service confirms.
func (s *snapshotSending) send(ctx context.Context, plan *reconcile.Plan, o reconcile.ApplyOptions) (*reconcile.Result, error) {
	sctx, wrapped := s.s.Wrap(ctx, s.next, plan)
	return reconcile.Apply(sctx, plan, wrapped, o)
}

// contradiction is the answer that showed the snapshot wrong, nil when
// none did.
func (s *snapshotSending) contradiction() *incremental.Contradiction { return s.s.Contradiction() }

// finish saves what the run sent in the organization's snapshot.
func (s *snapshotSending) finish() {
	start := time.Now()
	saved, err := s.s.Finish()
	if err != nil {
		s.log.Warn("the snapshot could not record this run: the next run reads the whole organization", zap.Error(err))
	}
	if !saved {
		return
	}
	s.log.Info("snapshot recorded", zap.Int("snapshotUsers", s.run.Users()), zap.Duration("snapshotSave", time.Since(start).Round(time.Millisecond)))
}
