package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/approval"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/reconcile"
)

// printHeld writes the organization's pending approvals after a run, with
// what to do about them.
func (e *env) printHeld(io stdio, rep *runReport) {
	for _, id := range rep.held.pending {
		prefix := ""
		if e.cfg.MultiOrg() {
			prefix = rep.org.Name + ": "
		}
		fmt.Fprintf(io.out, "%sheld for approval: %s (review it with orgsync approve %[2]s, or discard it with orgsync reject %[2]s)\n", prefix, id)
	}
}

// runApprove lists the pending approvals, or shows approval ID and
// applies what a fresh plan still wants of it.
func runApprove(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync approve", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	reportFile := addReportFlag(fs)
	e, code, ok := sf.start(fs, args, io, 1, nil)
	if !ok {
		return code
	}
	dir := e.stateDir()
	if dir == nil {
		return fail(io, fs.Name(), errNoStateDir)
	}
	if fs.NArg() == 0 {
		return listApprovals(io, fs.Name(), dir)
	}
	if err := checkReportFlag(*reportFile); err != nil {
		return fail(io, fs.Name(), err)
	}
	err := e.approve(ctx, io, dir, fs.Arg(0))
	if err = errors.Join(err, e.reportTo(io, *reportFile)); err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// runReject discards pending approval ID.
func runReject(_ context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync reject", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	e, code, ok := sf.start(fs, args, io, 1, nil)
	if !ok {
		return code
	}
	dir := e.stateDir()
	switch {
	case dir == nil:
		return fail(io, fs.Name(), errNoStateDir)
	case fs.NArg() == 0:
		return fail(io, fs.Name(), errors.New("name the approval to reject (orgsync approve lists them)"))
	}
	a, err := dir.Claim(fs.Arg(0))
	if err == nil {
		err = dir.Close(a, state.Rejected)
	}
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	fmt.Fprintf(io.out, "approval %s rejected: its %d changes are discarded (a later run holds them again while the sources still ask for them)\n", a.ID, len(a.Changes))
	return exitOK
}

var errNoStateDir = errors.New("approvals are kept in the state directory: set state.dir in the configuration")

// listApprovals prints the pending approvals.
func listApprovals(io stdio, name string, dir *state.Dir) int {
	list, err := dir.Approvals("", state.Pending)
	if err != nil {
		return fail(io, name, err)
	}
	if len(list) == 0 {
		fmt.Fprintln(io.out, "no pending approvals")
	}
	for _, a := range list {
		fmt.Fprintf(io.out, "%s  %s  organization %s: %d changes held: %s\n", a.ID, a.Created.Format(time.RFC3339), a.Org, len(a.Changes), a.Reason)
	}
	return exitOK
}

// approve shows approval id, plans its organization afresh and applies,
// once, the held changes the fresh plan still wants.
func (e *env) approve(ctx context.Context, io stdio, dir *state.Dir, id string) error {
	a, err := dir.Approval(id)
	if err != nil {
		return err
	}
	if a.Status != state.Pending {
		return fmt.Errorf("approval %s is %s already", a.ID, a.Status)
	}
	showApproval(io, a)
	org, err := e.target(a.Org)
	if err != nil {
		return fmt.Errorf("approval %s: %w", a.ID, err)
	}
	e.selected = []*config.NamedTarget{org}
	plans, err := e.makePlans(ctx)
	if err != nil {
		return err
	}
	p := plans[0]
	switch {
	case p.err != nil:
		return p.err
	case approval.SourcesIncomplete(p.plan):
		return fmt.Errorf("not applied: %s; approve again when the sources are whole", p.plan.Safety.Reason)
	}
	kept, dropped := approval.Narrow(a.Changes, p.plan)
	for i := range dropped {
		fmt.Fprintf(io.out, "no longer asked for by the sources, left out: %s\n", dropped[i].String())
	}
	if a, err = dir.Claim(a.ID); err != nil {
		return err
	}
	if len(kept) == 0 {
		fmt.Fprintln(io.out, "nothing left to apply: the approval is dropped")
		return dir.Close(a, state.Dropped)
	}
	p.plan = &reconcile.Plan{Changes: kept, UserGroups: p.plan.UserGroups, Unmatched: p.plan.Unmatched}
	rep, err := e.apply(ctx, p, applyReal)
	rep.err = err
	summary(rep, err)
	e.finish(ctx, p, rep, applyReal, a.ID)
	if cerr := dir.Close(a, state.Approved); cerr != nil {
		return errors.Join(err, cerr)
	}
	e.printResult(io, rep, applyReal)
	return err
}

// showApproval prints an approval and its changes.
func showApproval(io stdio, a *state.Approval) {
	fmt.Fprintf(io.out, "approval %s, organization %s, held %s: %s\n", a.ID, a.Org, a.Created.Format(time.RFC3339), a.Reason)
	for i := range a.Changes {
		fmt.Fprintf(io.out, "  %s\n", a.Changes[i].String())
	}
}
