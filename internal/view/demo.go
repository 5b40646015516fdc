package view

import (
	"fmt"
	"io"
	"time"
)

// DemoStep writes the heading of step n of orgsync demo's walk-through,
// which says what the step shows.
func DemoStep(w io.Writer, n int, what string) {
	fmt.Fprintf(w, "\n== %d. %s\n", n, what)
}

// ReviewFiles are the files orgsync demo --review leaves for the reader.
type ReviewFiles struct {
	Report, StatusPage, StateDir, SavedPlan string
}

// DemoReview writes where demo --review's files are, and how to see the
// status page live (with --serve).
func DemoReview(w io.Writer, f ReviewFiles) {
	fmt.Fprintf(w, "\nReport: %s\nStatus page (as the daemon serves it): %s\nState directory: %s\nSaved plan: %s\n",
		f.Report, f.StatusPage, f.StateDir, f.SavedPlan)
}

// DemoServing writes that demo --review serves the status page at addr for
// d; with d 0, how to have it served.
func DemoServing(w io.Writer, addr string, d time.Duration) {
	if d <= 0 {
		fmt.Fprintln(w, "(orgsync demo --review --serve 5m serves the status page live on loopback)")
		return
	}
	fmt.Fprintf(w, "Status page: http://%s/ for %s (Ctrl-C stops)\n", addr, d)
}
