package main

import (
	"flag"
	"fmt"
)

// addReportFlag defines --report, on a command whose outcome is recorded
// (its outcome writes the report).
func (f *setupFlags) addReportFlag(fs *flag.FlagSet) *string {
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

// end ends a command whose outcome is recorded with err (nil: it
// succeeded), through its outcome (outcome.end), and returns the exit
// code.
func (e *env) end(std stdio, name string, err error) int {
	if o := std.outcome; o != nil && o.env == e && !o.ended {
		return o.end(std, name, err)
	}
	if err != nil {
		return fail(std, name, err)
	}
	return exitOK
}
