package incremental

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
)

// journal is what a run's requests changed, as the service confirmed it,
// in the order it was sent.
type journal struct {
	entries []doneEntry
	invites []inviteDone
	// unsure are the targets of requests and entries without an answer,
	// and of invite operations that failed: the service may or may not
	// have applied them.
	unsure []string
}

// doneEntry is an entry whose first steps the service applied.
type doneEntry struct {
	e     *reconcile.Entry
	steps int
}

// inviteOp is what an invite operation did.
type inviteOp int

const (
	inviteGone inviteOp = iota + 1 // revoked, or none was pending
)

type inviteDone struct {
	email string
	op    inviteOp
}

func (j *journal) done(e *reconcile.Entry, steps int) {
	if steps > 0 {
		j.entries = append(j.entries, doneEntry{e: e, steps: steps})
	}
}

func (j *journal) empty() bool {
	return len(j.entries) == 0 && len(j.invites) == 0 && len(j.unsure) == 0
}

// applyTo changes s as the journal's steps changed the organization: one
// pass over its users finds those the steps touch, then the steps are
// replayed on copies of them in order, and the copies replace them. A step
// on a user the snapshot does not have (the service knew it) makes the
// snapshot doubtful.
func (j *journal) applyTo(s *snapshot.Snapshot, now time.Time) {
	u := &updater{s: s, now: now, work: map[string]*reconcile.User{}, index: map[string]int{},
		gone: map[string]bool{}, invited: map[string]bool{}}
	touched := j.touched()
	for i := range s.Users.Len() {
		if k := s.Users.Key(i); touched[k] {
			u.index[k] = i
		}
	}
	for _, d := range j.entries {
		u.entry(d.e, d.steps)
	}
	for _, in := range j.invites {
		u.invite(in.email, in.op)
	}
	u.writeBack()
	j.unsure = append(j.unsure, u.unknown...)
}

// touched are the keys of the users the journal's entries name.
func (j *journal) touched() map[string]bool {
	out := map[string]bool{}
	for _, d := range j.entries {
		if d.e.User != nil {
			out[d.e.User.Key()] = true
			continue
		}
		for _, st := range d.e.Steps {
			for i := range st.Users {
				out[st.Users[i].Key()] = true
			}
		}
	}
	return out
}

// updater replays confirmed steps on a snapshot.
type updater struct {
	s     *snapshot.Snapshot
	now   time.Time
	index map[string]int             // key -> index in s.Users of the users touched
	work  map[string]*reconcile.User // key -> the user as the steps left it
	added []string                   // keys of users the steps created, in order
	gone  map[string]bool            // keys no longer in the organization
	// invited are the keys of independent IDs the steps invited: not
	// members, their groups go with the invite.
	invited map[string]bool
	unknown []string // keys of users the steps changed that the snapshot does not have
}

// user is the user at key k as the steps left it, nil when there is none.
func (u *updater) user(k string) *reconcile.User {
	if w, ok := u.work[k]; ok {
		return w
	}
	i, ok := u.index[k]
	if !ok || u.gone[k] {
		return nil
	}
	c := u.s.Users.At(i)
	u.work[k] = &c
	return &c
}

func (u *updater) entry(e *reconcile.Entry, steps int) {
	if e.User == nil {
		u.groupEntry(e, steps)
		return
	}
	k := e.User.Key()
	for _, st := range e.Steps[:steps] {
		if st.Kind == reconcile.StepCreate {
			k = u.create(k, st.Create)
			continue
		}
		if u.invited[k] {
			continue // memberships kept with the invite
		}
		c := u.user(k)
		if c == nil {
			u.unknown = append(u.unknown, k)
			return
		}
		switch st.Kind {
		case reconcile.StepUpdate:
			k = u.update(k, c, st.Set)
		case reconcile.StepAdd:
			c.Groups = addGroups(c.Groups, st.Groups)
		case reconcile.StepRemove:
			c.Groups = removeGroups(c.Groups, st.Groups)
		case reconcile.StepRemoveFromOrg:
			u.drop(k)
		}
	}
}

// create replays a create step (with its option: on an existing user it
// updates the names an Enterprise or Federated ID gets, and leaves an
// independent ID alone) and returns the user's key.
func (u *updater) create(k string, c *reconcile.User) string {
	if have := u.user(k); have != nil {
		if have.Type.OrgOwned() {
			have.FirstName, have.LastName = cmp.Or(c.FirstName, have.FirstName), cmp.Or(c.LastName, have.LastName)
		}
		return k
	}
	if c.Type == reconcile.VendorID {
		u.invited[k] = true
		u.pending(c.Email)
		return k
	}
	nu := *c
	nu.Groups = nil
	nu.Username = cmp.Or(nu.Username, nu.Email)
	if nu.Domain == "" {
		_, nu.Domain, _ = strings.Cut(nu.Email, "@")
	}
	u.work[k] = &nu
	delete(u.gone, k)
	u.added = append(u.added, k)
	return k
}

// update replays an update step and returns the user's key, new when it
// changed the email or username that make it.
func (u *updater) update(k string, c *reconcile.User, set *reconcile.Attrs) string {
	if set == nil {
		return k
	}
	if set.FirstName != nil {
		c.FirstName = *set.FirstName
	}
	if set.LastName != nil {
		c.LastName = *set.LastName
	}
	if set.Email != nil {
		if strings.EqualFold(c.Username, c.Email) {
			c.Username = *set.Email // with the email, an email username follows (rule 8)
		}
		c.Email = *set.Email
	}
	if set.Username != nil {
		c.Username = *set.Username
	}
	nk := c.Key()
	if nk == k {
		return k
	}
	u.drop(k)
	u.work[nk] = c
	delete(u.gone, nk)
	u.added = append(u.added, nk)
	return nk
}

func (u *updater) drop(k string) {
	delete(u.work, k)
	u.gone[k] = true
}

// groupEntry replays a user-group entry's steps: the group exists, and
// its members named by email join or leave it.
func (u *updater) groupEntry(e *reconcile.Entry, steps int) {
	if !slices.ContainsFunc(u.s.Groups, func(g string) bool { return strings.EqualFold(g, e.Group) }) {
		u.s.Groups = append(u.s.Groups, e.Group)
	}
	for _, st := range e.Steps[:steps] {
		for i := range st.Users {
			k := st.Users[i].Key()
			c := u.user(k)
			if c == nil {
				u.unknown = append(u.unknown, k)
				continue
			}
			switch st.Kind {
			case reconcile.StepAdd:
				c.Groups = addGroups(c.Groups, []string{e.Group})
			case reconcile.StepRemove:
				c.Groups = removeGroups(c.Groups, []string{e.Group})
			}
		}
	}
}

// invite replays an invite operation.
func (u *updater) invite(email string, op inviteOp) {
	if op == inviteGone {
		u.s.Invites = slices.DeleteFunc(u.s.Invites, func(in reconcile.Invite) bool { return strings.EqualFold(in.Email, email) })
	}
}

// pending records a pending invite of email: sent now, unless one is
// pending (an invite with an option is not sent again); an expired one is
// sent again (re-invited).
func (u *updater) pending(email string) {
	for i := range u.s.Invites {
		in := &u.s.Invites[i]
		if !strings.EqualFold(in.Email, email) {
			continue
		}
		if in.Expired {
			in.LastSent, in.Expired = u.now, false
		}
		return
	}
	u.s.Invites = append(u.s.Invites, reconcile.Invite{Email: email, LastSent: u.now})
}

// writeBack puts the changed users in the snapshot: in their place, out
// when they left, at the end when they are new.
func (u *updater) writeBack() {
	drop := map[int]bool{}
	for k, i := range u.index {
		if w, ok := u.work[k]; ok {
			u.s.Users.Set(i, *w)
			delete(u.work, k)
		} else if u.gone[k] {
			drop[i] = true
		}
	}
	if len(drop) > 0 {
		u.s.Users.DeleteFunc(func(i int, _ reconcile.User) bool { return drop[i] })
	}
	for _, k := range u.added {
		if w, ok := u.work[k]; ok && !u.gone[k] {
			u.s.Users.Add(*w)
			delete(u.work, k)
		}
	}
}

// addGroups is groups with add's groups it lacks (letter case aside), in
// a new list.
func addGroups(groups, add []string) []string {
	out := slices.Clip(groups)
	for _, g := range add {
		if !slices.ContainsFunc(out, func(h string) bool { return strings.EqualFold(h, g) }) {
			out = append(out, g)
		}
	}
	return out
}

// removeGroups is groups without rm's groups (letter case aside), in a
// new list.
func removeGroups(groups, rm []string) []string {
	var out []string
	for _, g := range groups {
		if !slices.ContainsFunc(rm, func(r string) bool { return strings.EqualFold(r, g) }) {
			out = append(out, g)
		}
	}
	return out
}
