package reconcile

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
	c := Counts{Withheld: len(p.Withheld), Unmatched: p.Unmatched.Len(), Excluded: p.Excluded, OutOfScope: p.OutOfScope}
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

// Of is the count of changes of kind k (0 for a kind the table does not
// know): what a summary that lists every kind reads.
func (c Counts) Of(k Kind) int {
	if r, ok := kinds[k]; ok {
		return *r.count(&c)
	}
	return 0
}
