package reconcile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Counts are the number of changes of each kind, and of memberships.
type Counts struct {
	CreateGroup       int `json:"createGroup"`
	Create            int `json:"create"`
	Update            int `json:"update"`
	Remove            int `json:"remove"`
	Delete            int `json:"delete"`
	ResendInvite      int `json:"resendInvite"`
	RevokeInvite      int `json:"revokeInvite"`
	AddMemberships    int `json:"addMemberships"`
	RemoveMemberships int `json:"removeMemberships"`
	InviteGroups      int `json:"inviteGroups"` // pending invites whose groups are sent again (not changes)
	Withheld          int `json:"withheld"`
	Unmatched         int `json:"unmatched"`
	Excluded          int `json:"excluded"`
	OutOfScope        int `json:"outOfScope,omitempty"`
}

// Counts counts the plan's changes and its pending invites' groups by
// kind; a change of a kind the table does not know is not counted (Check
// reports it).
func (p *Plan) Counts() Counts {
	c := Counts{Withheld: len(p.Withheld), Unmatched: len(p.Unmatched), Excluded: p.Excluded, OutOfScope: p.OutOfScope}
	for i := range p.Changes {
		if r, ok := kinds[p.Changes[i].Kind]; ok {
			*r.count(&c)++
		}
		c.AddMemberships += len(p.Changes[i].Add)
		c.RemoveMemberships += len(p.Changes[i].Remove)
	}
	for i := range p.InviteGroups {
		if r, ok := kinds[p.InviteGroups[i].Kind]; ok {
			*r.count(&c)++
		}
	}
	return c
}

// String is the one-line summary of the counts.
func (c Counts) String() string {
	s := fmt.Sprintf("%d to create, %d to update, %d to remove, %d to delete, +%d/-%d memberships, %d groups to create, %d invites to resend, %d to revoke; %d withheld, %d unmatched, %d excluded",
		c.Create, c.Update, c.Remove, c.Delete, c.AddMemberships, c.RemoveMemberships, c.CreateGroup,
		c.ResendInvite, c.RevokeInvite, c.Withheld, c.Unmatched, c.Excluded)
	if c.OutOfScope > 0 {
		s += fmt.Sprintf(", %d out of scope", c.OutOfScope)
	}
	if c.InviteGroups > 0 {
		s += fmt.Sprintf("; %d pending invites' groups sent again", c.InviteGroups)
	}
	return s
}

// MaxUnmatchedShown is the most unmatched users Render lists one a line;
// the others are counted.
const MaxUnmatchedShown = 20

// Render writes the plan for people: one line per change, terraform-like
// ("+ create", "~ update", "- remove"), then withheld changes, notes, the
// unmatched users (at most MaxUnmatchedShown) and the excluded count, and a
// summary line.
func (p *Plan) Render(w io.Writer) error {
	if err := p.Check(); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	for i := range p.Changes {
		b.WriteString(p.Changes[i].String())
		b.WriteByte('\n')
	}
	for i := range p.InviteGroups {
		b.WriteString(p.InviteGroups[i].String())
		b.WriteByte('\n')
	}
	if len(p.InviteGroups) > 0 {
		b.WriteString("# note: the groups of pending invites (=) are sent again on every sync: the service does not show the groups kept with an invite; sending them again changes nothing that is there already\n")
	}
	for i := range p.Withheld {
		b.WriteString("! withheld ")
		b.WriteString(p.Withheld[i].String())
		b.WriteByte('\n')
	}
	if p.Safety != nil {
		fmt.Fprintf(b, "! %s\n", p.Safety.Error())
	}
	for _, g := range p.MissingGroups {
		fmt.Fprintf(b, "! %s\n", g)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "# note: %s\n", n)
	}
	p.renderUnmatched(b)
	fmt.Fprintf(b, "Plan: %s\n", p.Counts())
	return b.Flush()
}

// renderUnmatched writes the unmatched users, at most MaxUnmatchedShown of
// them, and the number of excluded users.
func (p *Plan) renderUnmatched(b *bufio.Writer) {
	if n := len(p.Unmatched); n > 0 {
		fmt.Fprintf(b, "# %d unmatched %s (in the organization, in no source; policy.unmatchedUsers says what happens to them):\n", n, plural(n, "user", "users"))
		for i := range p.Unmatched[:min(n, MaxUnmatchedShown)] {
			u := &p.Unmatched[i]
			fmt.Fprintf(b, "#   %s (%s)\n", u.Key(), u.Type)
		}
		if n > MaxUnmatchedShown {
			fmt.Fprintf(b, "#   ... and %d more (see --output json or policy.reportFile)\n", n-MaxUnmatchedShown)
		}
	}
	if p.Excluded > 0 {
		fmt.Fprintf(b, "# %d excluded %s (left alone by policy.exclude)\n", p.Excluded, plural(p.Excluded, "user", "users"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// String renders one change on one line, e.g.
// `+ create jane@example.com (enterpriseID) "Jane" "Doe" US groups: +Design +Dev`.
func (c *Change) String() string {
	var b strings.Builder
	r, ok := kinds[c.Kind]
	if !ok {
		r.sign = "?"
	}
	fmt.Fprintf(&b, "%s %s %s", r.sign, c.Kind, c.Key())
	if r.send == asGroupEntry {
		return b.String()
	}
	if c.User.Type != "" {
		fmt.Fprintf(&b, " (%s)", c.User.Type)
	}
	if c.Kind == KindCreate {
		fmt.Fprintf(&b, " firstname=%q lastname=%q country=%q", c.User.FirstName, c.User.LastName, c.User.Country)
	}
	if r.steps.deleteAccount {
		b.WriteString(" deleteAccount")
	}
	if c.Set != nil {
		for _, f := range []struct {
			name string
			v    *string
		}{{"firstname", c.Set.FirstName}, {"lastname", c.Set.LastName}, {"email", c.Set.Email}, {"username", c.Set.Username}} {
			if f.v != nil {
				fmt.Fprintf(&b, " %s=%q", f.name, *f.v)
			}
		}
	}
	if len(c.Add)+len(c.Remove) > 0 {
		b.WriteString(" groups:")
		for _, g := range c.Add {
			b.WriteString(" +" + g)
		}
		for _, g := range c.Remove {
			b.WriteString(" -" + g)
		}
	}
	return b.String()
}

// planJSON is the stable machine-readable form of a plan.
type planJSON struct {
	FormatVersion int    `json:"formatVersion"`
	Counts        Counts `json:"counts"`
	*Plan
}

// PlanFormatVersion is the version of the JSON schema written by RenderJSON.
// Version 2 calls the users in the organization and in no source
// "unmatched" (the plan's list and its count), as the configuration and
// the plan's text do; version 1 called them "unlisted".
const PlanFormatVersion = 2

// RenderJSON writes the plan as one JSON object: formatVersion, counts,
// changes, withheld, safety, unmatched, excluded, notes, userGroups,
// missingGroups.
func (p *Plan) RenderJSON(w io.Writer) error {
	if err := p.Check(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(planJSON{FormatVersion: PlanFormatVersion, Counts: p.Counts(), Plan: p})
}
