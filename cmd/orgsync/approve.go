package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/orgsync/orgsync/internal/changecontrol"
)

// runApprove lists the pending approvals, or shows approval ID and
// applies what a fresh plan still wants of it.
func runApprove(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("approve", false)
	reportFile := addReportFlag(c.fs)
	c.maxArgs = 1
	e, j, code, ok := c.start(io, args, true)
	if !ok {
		return code
	}
	if c.fs.NArg() == 0 {
		if err := e.control.List(io.out); err != nil {
			return fail(io, c.fs.Name(), err)
		}
		return exitOK
	}
	if err := changecontrol.CheckReport(*reportFile); err != nil {
		return fail(io, c.fs.Name(), err)
	}
	r, err := e.control.Approve(ctx, j, c.fs.Arg(0), io.out)
	e.control.WriteResult(io.out, r, j.Config().MultiOrg())
	if err = errors.Join(err, e.reportTo(io, *reportFile)); err != nil {
		return fail(io, c.fs.Name(), err)
	}
	return exitOK
}

// runReject discards pending approval ID.
func runReject(_ context.Context, io stdio, args []string) int {
	c := newRunCommand("reject", false)
	c.maxArgs = 1
	e, code, ok := c.setup.start(c.fs, args, io, 1, nil)
	if !ok {
		return code
	}
	if c.fs.NArg() == 0 {
		return fail(io, c.fs.Name(), errors.New("name the approval to reject (orgsync approve lists them)"))
	}
	a, err := e.control.Reject(c.fs.Arg(0))
	if err != nil {
		return fail(io, c.fs.Name(), err)
	}
	fmt.Fprintf(io.out, "approval %s rejected: its %d changes are discarded (a later run holds them again while the sources still ask for them)\n", a.ID, len(a.Changes))
	return exitOK
}
