package migrate

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
)

// Command is one orgsync migrate, as its flags give it.
type Command struct {
	File string // the incumbent's main file
	Options
	// Name is the configuration's name in the check's messages: Out, or
	// the file it is meant to become.
	Name string
	// Force overwrites Out; CheckTarget counts on the live plan
	// (CountOnLivePlan); ReportFile also gets the report.
	Force, CheckTarget bool
	ReportFile         string
	// WriteNew writes the configuration to Out, refusing to replace a
	// file unless force is set.
	WriteNew func(path string, data []byte, force bool) error
}

// Run migrates c.File and checks the result as validate does without the
// network. The configuration goes to c.Out, or to out when c.Out is ""
// (the report then to errw; else to out). It reports whether migrate
// succeeded: the configuration checks out, nothing is left to fill in,
// no difference is left to accept, and the live count, when asked for,
// could be made.
func (c Command) Run(ctx context.Context, out, errw io.Writer) (bool, error) {
	if c.CheckTarget && c.Out == "" {
		return false, fmt.Errorf("--check-target needs --out: it plans with the configuration written there")
	}
	res, err := Migrate(c.File, c.Options)
	if err != nil {
		return false, err
	}
	res.Report.Check = CheckConfig(ctx, res.Config, c.Name)
	report := out
	if c.Out == "" {
		fmt.Fprint(out, string(res.Config))
		report = errw
	} else if err := c.WriteNew(c.Out, res.Config, c.Force); err != nil {
		return false, err
	}
	liveOK := true
	if c.CheckTarget {
		lines, err := CountOnLivePlan(ctx, c.Out)
		if err != nil {
			lines, liveOK = []string{"could not plan with " + filepath.Clean(c.Out) + ": " + err.Error()}, false
		}
		res.Report.Live = lines
	}
	res.Report.WriteText(report)
	if c.ReportFile != "" {
		if err := res.Report.WriteFile(c.ReportFile); err != nil {
			return false, err
		}
	}
	if c.Out != "" {
		fmt.Fprintf(report, "\nwrote %s\n", filepath.Clean(c.Out))
	}
	return res.Report.Check.OK() && len(res.Report.FillIn) == 0 && !res.Report.Blocked() && liveOK, nil
}
