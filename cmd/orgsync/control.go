package main

import (
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/internal/run"
)

// printHeld writes the organization's pending approvals after a run, with
// what to do about them.
func (e *env) printHeld(io stdio, r *run.Result, multiOrg bool) {
	prefix := ""
	if multiOrg {
		prefix = r.Org.Name + ": "
	}
	for _, id := range e.control.HeldIn(r.Org.Name).Pending {
		fmt.Fprintf(io.out, "%sheld for approval: %s (review it with orgsync approve %[2]s, or discard it with orgsync reject %[2]s)\n", prefix, id)
	}
}

// addReportFlag defines --report.
func addReportFlag(fs *flag.FlagSet) *string {
	return fs.String("report", "", "write the run's summary and every change sent to this file: .csv, or .html (one self-contained page)")
}

// reportTo writes the report to path when it is set and says where.
func (e *env) reportTo(io stdio, path string) error {
	if path == "" {
		return nil
	}
	if err := e.control.WriteReport(path); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(io.out, "report written to %s\n", path)
	return nil
}
