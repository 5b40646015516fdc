package main

import (
	"errors"
	"fmt"

	"github.com/orgsync/orgsync/internal/run"
)

// outcome is the end of a command that can change the service or an
// approval: the command lines the command table records (command.records).
// dispatch gives one to such a command; setup hands it the command's
// configuration and change control; and every way the command ends goes
// through end: its own, fail (the error exit of every command), or
// dispatch's finish when it returned without either. So an outcome is
// never lost: a run's or a decision's is recorded where it happens (the
// Control hears it), and a failure marked with its phase
// (run.InPhase) that nothing recorded yet is recorded here, for the
// command's organizations; an error without a phase is the command
// line's (an unknown approval id, a flag), which changes nothing and is
// only printed. Then the report asked for is written, the notifications
// under way are waited for, and the exit code says whether everything
// applied was recorded.
type outcome struct {
	mode   string  // the mode of the command's run records
	env    *env    // set once the configuration loads
	report *string // --report, nil when the command has none
	ended  bool
}

// recorded returns the outcome of c run with args when c records this
// command line (name and, for a command with subcommands, the first
// argument), nil when it does not.
func recorded(name string, c command, args []string) *outcome {
	if len(args) > 0 {
		if mode, ok := c.records[name+" "+args[0]]; ok {
			return &outcome{mode: mode}
		}
	}
	if mode, ok := c.records[name]; ok {
		return &outcome{mode: mode}
	}
	return nil
}

// end ends the command with err (nil: it succeeded) as the outcome says,
// and returns its exit code: exitUnrecorded when changes were applied
// that the state directory could not record, else exitError with err
// printed, else exitOK.
func (o *outcome) end(std stdio, name string, err error) int {
	o.ended = true
	e := o.env
	if err != nil && run.Marked(err) && e.control.Heard() == 0 {
		e.control.FailedCommand(e.cfg.TargetsNamed(e.orgs), err)
	}
	if o.report != nil {
		err = errors.Join(err, e.reportTo(std, *o.report))
	}
	e.control.Wait()
	if e.control.Unrecorded() {
		if err != nil {
			printError(std, name, err)
		}
		fmt.Fprintf(std.err, "%s: changes were applied that the state directory could not record (see the log): exit %d\n", name, exitUnrecorded)
		return exitUnrecorded
	}
	if err != nil {
		printError(std, name, err)
		return exitError
	}
	return exitOK
}

// finish ends a command that returned code without ending through its
// outcome (a listing, a dry run, an answer of no): the report and the
// notifications, and the exit code, the worse of the two.
func (o *outcome) finish(std stdio, name string, code int) int {
	if o == nil || o.env == nil || o.ended {
		return code
	}
	return max(code, o.end(std, name, nil))
}
