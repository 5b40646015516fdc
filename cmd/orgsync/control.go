package main

import (
	"flag"
	"fmt"
)

// addReportFlag defines --report, on a command whose runs are recorded
// (recordRuns).
func (f *setupFlags) addReportFlag(fs *flag.FlagSet) *string {
	f.recordRuns()
	f.report = fs.String("report", "", "write the run's summary and every change sent to this file: .csv, or .html (one self-contained page)")
	return f.report
}

// reportTo writes the report to path when it is set and says where.
func (e *env) reportTo(std stdio, path string) error {
	if path == "" {
		return nil
	}
	if err := e.control.WriteReport(path); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(std.out, "report written to %s\n", path)
	return nil
}

// end ends a command that ran the job: it waits for the notifications
// under way, and returns the exit code: exitUnrecorded when changes were
// applied that the state directory could not record, else exitError with
// err printed, else exitOK.
func (e *env) end(std stdio, name string, err error) int {
	e.control.Wait()
	if e.control.Unrecorded() {
		if err != nil {
			printError(std, name, err)
		}
		fmt.Fprintf(std.err, "%s: changes were applied that the state directory could not record (see the log): exit %d\n", name, exitUnrecorded)
		return exitUnrecorded
	}
	if err != nil {
		return fail(std, name, err)
	}
	return exitOK
}
