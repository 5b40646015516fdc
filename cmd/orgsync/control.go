package main

import (
	"flag"
	"fmt"
)

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
