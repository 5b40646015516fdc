package view

import (
	"fmt"
	"io"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
)

// SavedPlan writes a saved plan for people: its header as of now (when it
// was made, by which version, from which configuration and flags), then
// each organization's plan under its name and id; or as the file has it
// (FormatJSON).
func SavedPlan(w io.Writer, f *planfile.File, format string, now time.Time) error {
	if format == FormatJSON {
		return f.Encode(w)
	}
	fmt.Fprintf(w, "saved plan (format %d), made %s (%s ago) by orgsync %s\n", f.FormatVersion,
		f.Created.Format(time.RFC3339), f.Age(now).Round(time.Second), f.ToolVersion)
	fmt.Fprintf(w, "configuration %s (fingerprint %s)\nsources fingerprint %s\n", f.ConfigFile, short(f.Config), short(f.Sources))
	if fl := f.Flags.String(); fl != "" {
		fmt.Fprintf(w, "made with %s (orgsync apply uses them too)\n", fl)
	}
	for _, o := range f.Organizations {
		fmt.Fprintf(w, "\n== organization %s (%s)\n", o.Name, o.OrgID)
		if err := Plan(w, o.Plan); err != nil {
			return err
		}
	}
	return nil
}

// short is the first 12 digits of a fingerprint.
func short(fp string) string { return fp[:min(12, len(fp))] }
