package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/util/logs"
	"github.com/orgsync/orgsync/internal/view"
)

// addByFlag defines --by, approve's and reject's: who decides.
func addByFlag(fs *flag.FlagSet) *string {
	return fs.String("by", "", "who decides, as the approval and the history record it (default: the OS user running orgsync)")
}

// runApprove lists the pending approvals, or shows approval ID, asks, and
// applies what a fresh plan still wants of it.
func runApprove(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("approve", false)
	c.setup.addReportFlag(c.fs)
	by := addByFlag(c.fs)
	yes := c.fs.Bool("yes", false, "apply without asking (needed when orgsync does not run on a terminal)")
	dryRun := c.fs.Bool("dry-run", false, "show what approving applies, and apply nothing")
	c.maxArgs = 1
	e, j, code, ok := c.start(std, args, true)
	if !ok {
		return code
	}
	if c.fs.NArg() == 0 {
		pending, err := e.control.Pending()
		if err != nil {
			return fail(std, c.fs.Name(), err)
		}
		now, err := e.control.Standings(ctx, j, pending)
		view.Approvals(std.out, pending, now, err)
		return exitOK
	}
	o := changecontrol.ApproveOptions{By: changecontrol.Approver(*by, "orgsync approve"), DryRun: *dryRun}
	if !*yes && !*dryRun {
		if !logs.IsTerminal(std.in) {
			return fail(std, c.fs.Name(), errors.New("not on a terminal: give --yes to apply the approval (orgsync approve ID --dry-run shows what it applies)"))
		}
		o.Confirm = func() (bool, error) { return confirm(std, "apply these changes?") }
	}
	r, err := e.control.Approve(ctx, j, c.fs.Arg(0), view.Approving{W: std.out}, o)
	view.Result(std.out, r, j.MultiOrg())
	return e.end(std, c.fs.Name(), err)
}

// confirm asks question on s.err and reads the answer from s.in: yes
// when it starts with y.
func confirm(s stdio, question string) (bool, error) {
	fmt.Fprintf(s.err, "%s [y/N] ", question)
	answer, err := bufio.NewReader(s.in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return strings.HasPrefix(answer, "y"), nil
}

// runReject discards pending approval ID.
func runReject(_ context.Context, std stdio, args []string) int {
	c := newRunCommand("reject", false)
	c.setup.addReportFlag(c.fs)
	by := addByFlag(c.fs)
	c.maxArgs = 1
	e, code, ok := c.setup.start(c.fs, args, std, 1, nil)
	if !ok {
		return code
	}
	if c.fs.NArg() == 0 {
		return fail(std, c.fs.Name(), errors.New("name the approval to reject (orgsync approve lists them)"))
	}
	a, err := e.control.Reject(c.fs.Arg(0), changecontrol.Approver(*by, "orgsync reject"))
	if err == nil {
		view.Rejected(std.out, a)
	}
	return e.end(std, c.fs.Name(), err)
}
