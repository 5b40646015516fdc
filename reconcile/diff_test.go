package reconcile

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func ent(email, first string, groups ...string) User {
	return User{Type: EnterpriseID, Email: email, FirstName: first, LastName: "L", Country: "US", Groups: groups}
}

func basePolicy() *Policy {
	return &Policy{Managed: []string{"Design", "Dev", "PP-Pro", "_org_admin"}, UserGroups: []string{"Design", "Dev"},
		Update: Attributes{FirstName: true, LastName: true}}
}

func findChange(p *Plan, kind Kind, key string) *Change {
	for i := range p.Changes {
		if p.Changes[i].Kind == kind && p.Changes[i].Key() == key {
			return &p.Changes[i]
		}
	}
	return nil
}

func TestDiffCreateUpdateMemberships(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{
		ent("Bob@x.com", "Bob", "design", "Unmanaged", "_org_admin"),
		{Type: VendorID, Email: "ind@x.com", FirstName: "Old", Groups: []string{"Dev"}},
		ent("keep@x.com", "Keep", "Unmanaged"),
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{
		ent("new@x.com", "New", "Dev", "PP-Pro", "_org_admin", "NotManaged"),
		ent("bob@X.com", "Robert", "DESIGN", "Dev"),
		{Type: VendorID, Email: "ind@x.com", FirstName: "New", Groups: []string{"Dev"}},
		ent("keep@x.com", "Keep"),
	}...)}
	p, err := Diff(des, cur, validPolicy(t, basePolicy()))
	if err != nil {
		t.Fatal(err)
	}
	c := findChange(p, KindCreate, "new@x.com")
	if c == nil || !slices.Equal(c.Add, []string{"Dev", "PP-Pro"}) {
		t.Fatalf("create new@x.com = %+v, want add [Dev PP-Pro] (no _org_admin, no unmanaged)", c)
	}
	u := findChange(p, KindUpdate, "bob@x.com")
	if u == nil || u.Set == nil || *u.Set.FirstName != "Robert" || u.Set.LastName != nil || !slices.Equal(u.Add, []string{"Dev"}) || len(u.Remove) != 0 {
		t.Fatalf("update bob = %+v, want firstname Robert, add Dev, no remove", u)
	}
	if c := findChange(p, KindUpdate, "ind@x.com"); c != nil {
		t.Errorf("independent ID updated: %+v", c)
	}
	if len(p.Changes) != 2 {
		t.Errorf("changes = %v, want 2", p.Changes)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "_org_admin") {
		t.Errorf("notes = %v, want one about _org_admin", p.Notes)
	}
}

func TestDiffUnmatchedPolicies(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{
		ent("a@x.com", "A", "Dev"),
		ent("gone@x.com", "G", "Dev", "Other"),
		{Type: VendorID, Email: "v@x.com", Groups: []string{"Design"}},
		ent("admin@x.com", "Ad", "Dev", "_org_admin"),
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "A", "Dev")}...)}
	for _, tc := range []struct {
		mode  Unmatched
		gone  Kind
		vKind Kind
	}{{Preserve, "", ""}, {RemoveGroups, KindUpdate, KindUpdate}, {RemoveUsers, KindRemove, KindRemove}, {DeleteUsers, KindDelete, KindRemove}} {
		pol := basePolicy()
		pol.Unmatched = tc.mode
		p, err := Diff(des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		if p.Unmatched.Len() != 3 {
			t.Errorf("%s: unmatched report = %d users, want 3", tc.mode, p.Unmatched.Len())
		}
		if tc.gone == "" {
			if !p.Empty() {
				t.Errorf("preserve: plan = %v, want empty", p.Changes)
			}
			continue
		}
		g := findChange(p, tc.gone, "gone@x.com")
		if g == nil {
			t.Fatalf("%s: no %s of gone@x.com in %v", tc.mode, tc.gone, p.Changes)
		}
		if tc.mode == RemoveGroups && !slices.Equal(g.Remove, []string{"Dev"}) {
			t.Errorf("remove-groups removes %v, want only [Dev] (not Other)", g.Remove)
		}
		if findChange(p, tc.vKind, "v@x.com") == nil {
			t.Errorf("%s: independent ID not %s: %v", tc.mode, tc.vKind, p.Changes)
		}
		// A system administrator is never removed from the organization
		// (that would take the role the service does not let a client
		// remove, rule 11): it loses its managed memberships only.
		if a := findChange(p, KindUpdate, "admin@x.com"); a == nil || !slices.Equal(a.Remove, []string{"Dev"}) {
			t.Errorf("%s: admin@x.com: %v, want an update removing only [Dev] (not _org_admin)", tc.mode, p.Changes)
		}
		noted := slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "admin@x.com is a system administrator") })
		if want := tc.mode == RemoveUsers || tc.mode == DeleteUsers; noted != want {
			t.Errorf("%s: note on the administrator %v, want %v: %q", tc.mode, noted, want, p.Notes)
		}
	}
}

func TestDiffExclusions(t *testing.T) {
	t.Parallel()
	pol := basePolicy()
	pol.Unmatched = DeleteUsers
	pol.ExcludeTypes = []IdentityType{FederatedID}
	pol.ExcludeGroups = []string{"Admins"}
	pol.ExcludeUsernames = []*regexp.Regexp{regexp.MustCompile(`^svc-`)}
	cur := &Current{Users: UsersOf([]User{
		{Type: FederatedID, Email: "fed@x.com", Groups: []string{"Dev"}},
		ent("admin@x.com", "A", "admins", "Dev"),
		ent("svc-bot@x.com", "B", "Dev"),
		ent("a@x.com", "A", "Dev"),
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "A", "Dev"), ent("admin@x.com", "Changed"), ent("svc-new@x.com", "S")}...)}
	p, err := Diff(des, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Empty() {
		t.Errorf("plan touches excluded users: %v", p.Changes)
	}
	if p.Excluded != 4 {
		t.Errorf("excluded = %d, want 4", p.Excluded)
	}
}

func TestDiffInvites(t *testing.T) {
	t.Parallel()
	pol := basePolicy()
	pol.RevokeUnmatchedInvites, pol.ResendExpiredInvites = true, true
	cur := &Current{Invites: []Invite{{Email: "Pending@x.com"}, {Email: "old@x.com", Expired: true}, {Email: "stray@x.com"}, {Email: "lapsed@x.com", Expired: true}}} // lapsed@: expired, not revoked
	des := Desired{Complete: true, Users: UsersOf([]User{
		{Type: VendorID, Email: "pending@x.com", Groups: []string{"Dev"}},
		{Type: VendorID, Email: "old@x.com"},
	}...)}
	p, err := Diff(des, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Changes {
		got = append(got, string(c.Kind)+" "+c.Key())
	}
	want := []string{"resend-invite old@x.com", "revoke-invite stray@x.com"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	// A pending invite is left alone: its groups went with it.
	if len(p.InviteGroups) != 0 {
		t.Errorf("pending invite not left alone: invite groups %+v", p.InviteGroups)
	}
	// Under RefreshInviteGroups its groups are sent again (they cannot be
	// seen); they are no change.
	pol.RefreshInviteGroups = true
	if p, err = Diff(des, cur, validPolicy(t, pol)); err != nil {
		t.Fatal(err)
	}
	if len(p.InviteGroups) != 1 || p.InviteGroups[0].Kind != KindInviteGroups || p.InviteGroups[0].Key() != "pending@x.com" ||
		!slices.Equal(p.InviteGroups[0].Add, []string{"Dev"}) {
		t.Errorf("invite groups %+v", p.InviteGroups)
	}
	pol.ResendExpiredInvites = false // an expired invite is then only noted: the user is not invited
	pol.Names = func(s Setting) string { return "<the key of " + string(s) + ">" }
	if p, err = Diff(des, cur, validPolicy(t, pol)); err != nil {
		t.Fatal(err)
	}
	if findChange(p, KindResendInvite, "old@x.com") != nil || !slices.ContainsFunc(p.Notes, func(n string) bool {
		return strings.Contains(n, "old@x.com: the invite sent") && strings.Contains(n, "set <the key of resendExpiredInvites> to invite them again")
	}) {
		t.Errorf("without resendExpired: changes %v, notes %q; want a note on old@x.com's expired invite", p.Changes, p.Notes)
	}
}

// An email with an expired invite and a newer pending one (the listing
// holds both after a re-invite, expired ones included by default, newest
// first) is invited: nothing to resend, in either listing order.
func TestDiffExpiredAndNewerPendingInvite(t *testing.T) {
	t.Parallel()
	pol := basePolicy()
	pol.RevokeUnmatchedInvites, pol.ResendExpiredInvites = true, true
	now := time.Now()
	pending := Invite{Email: "again@x.com", LastSent: now.Add(-time.Hour)}
	expired := Invite{Email: "Again@x.com", LastSent: now.Add(-40 * 24 * time.Hour), Expired: true}
	des := Desired{Complete: true, Users: UsersOf([]User{{Type: VendorID, Email: "again@x.com", Groups: []string{"Dev"}}}...)}
	for _, invites := range [][]Invite{{pending, expired}, {expired, pending}} {
		p, err := Diff(des, &Current{Invites: invites}, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		if !p.InSync() {
			t.Errorf("invites %v: plan not in sync: %v", invites, p.Changes)
		}
	}
}

func TestDiffCreateGroups(t *testing.T) {
	t.Parallel()
	pol := basePolicy()
	pol.CreateUserGroups = true
	p, err := Diff(Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "A", "Dev")}...)}, &Current{Missing: []string{"Dev"}}, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	if findChange(p, KindCreateGroup, "Dev") == nil || findChange(p, KindCreateGroup, "Design") != nil {
		t.Errorf("changes = %v, want create-group Dev only", p.Changes)
	}
	reqs := p.Batches(DefaultLimits())
	if len(reqs) != 2 || reqs[0].Entries[0].Group != "Dev" {
		t.Errorf("batches = %+v, want the group created in a request before the user", reqs)
	}
}

func TestSafety(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{ent("a@x.com", "A", "Dev"), ent("b@x.com", "B", "Dev"), ent("c@x.com", "C", "Dev", "Design")}...)}
	full := Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "A", "Dev"), ent("c@x.com", "C", "Dev"), ent("n@x.com", "N")}...)}
	for _, tc := range []struct {
		name   string
		des    Desired
		limit  func(*Policy)
		reason string
	}{
		{"empty source", Desired{Complete: true}, nil, "no user"},
		{"failed source", Desired{Users: full.Users}, nil, "reported problems"},
		{"max removals count", full, func(p *Policy) { p.MaxRemovals.Count = 1 }, "2 removals exceed maxRemovals 1"},
		{"max removals percent", full, func(p *Policy) { p.MaxRemovals.Percent = 50 }, "2 removals exceed maxRemovals 1 (50% of 3 managed users, rounded down)"},
		{"max removals percent rounding to 0", full, func(p *Policy) { p.MaxRemovals.Percent = 10 }, "2 removals exceed maxRemovals 0 (10% of 3 managed users, rounded down)"},
		{"count below percent", full, func(p *Policy) { p.MaxRemovals = Limit{Count: 1, Percent: 50} }, "2 removals exceed maxRemovals 1:"},
		{"max changes", full, func(p *Policy) { p.MaxChanges.Count = 2 }, "3 changes exceed maxChanges 2"},
		{"limit named by the caller", full, func(p *Policy) {
			p.MaxRemovals.Count = 1
			p.Names = func(s Setting) string { return "<the key of " + string(s) + ">" }
		}, "2 removals exceed <the key of maxRemovals> 1"},
	} {
		pol := basePolicy()
		pol.Unmatched = RemoveUsers
		if tc.limit != nil {
			tc.limit(pol)
		}
		p, err := Diff(tc.des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			if c.Destructive() {
				t.Errorf("%s: destructive change kept: %v", tc.name, show(c))
			}
		}
		limited := strings.Contains(tc.reason, " exceed ")
		if p.Safety == nil || !strings.Contains(p.Safety.Error(), tc.reason) || len(p.Withheld) == 0 || (p.Safety.LimitName != "") != limited {
			t.Errorf("%s: safety = %v, withheld %d; want reason %q", tc.name, p.Safety, len(p.Withheld), tc.reason)
		}
	}
	pol := basePolicy()
	pol.Unmatched = RemoveUsers
	pol.MaxRemovals.Count = 2
	p, _ := Diff(full, cur, validPolicy(t, pol))
	if p.Safety != nil || len(p.Withheld) != 0 {
		t.Errorf("within limits: safety %v, withheld %v", p.Safety, p.Withheld)
	}
}

func TestDiffCreateNeedsTheServiceRequiredFields(t *testing.T) {
	t.Parallel()
	des := Desired{Complete: true, Users: UsersOf([]User{
		{Type: FederatedID, Username: "fred", Domain: "x.com", FirstName: "Fred", LastName: "F", Country: "US", Groups: []string{"Dev"}},
		{Type: EnterpriseID, Email: "noname@x.com", Country: "US"},
		{Type: FederatedID, Email: "nocountry@x.com", FirstName: "N", LastName: "C"},
		{Type: VendorID, Email: "ind@gmail.com"},
		ent("ok@x.com", "Ok", "Dev"),
	}...)}
	p, err := Diff(des, &Current{}, validPolicy(t, basePolicy()))
	if err != nil {
		t.Fatal(err)
	}
	var created []string
	for _, c := range p.Changes {
		created = append(created, c.Key())
	}
	if want := []string{"ind@gmail.com", "ok@x.com"}; !slices.Equal(created, want) {
		t.Errorf("created %v, want %v", created, want)
	}
	wantNotes := []string{"fred@x.com", "needs email", "noname@x.com", "needs firstname, lastname", "nocountry@x.com", "needs country"}
	all := strings.Join(p.Notes, "\n")
	for _, w := range wantNotes {
		if !strings.Contains(all, w) {
			t.Errorf("notes %q lack %q", all, w)
		}
	}
}

func TestDiffMatchesAUsernameFederatedIDByItsEmail(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{
		{Type: FederatedID, Email: "gina.g@x.com", Username: "gfed", Domain: "x.com", FirstName: "G", LastName: "F", Country: "US", Groups: []string{"Dev"}},
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{
		{Type: FederatedID, Email: "Gina.G@x.com", Domain: "x.com", FirstName: "Gina", LastName: "F", Country: "US", Groups: []string{"Dev", "Design"}},
	}...)}
	pol := basePolicy()
	pol.Unmatched = RemoveGroups
	p, err := Diff(des, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Kind != KindUpdate || p.Changes[0].Key() != "gfed@x.com" {
		t.Fatalf("changes = %+v, want one update of gfed@x.com (matched by email), no create, no removal", p.Changes)
	}
	if c := p.Changes[0]; !slices.Equal(c.Add, []string{"Design"}) || len(c.Remove) != 0 || c.Set == nil || *c.Set.FirstName != "Gina" {
		t.Errorf("update = %+v, want firstname Gina, +Design", c)
	}
	if p.Unmatched.Len() != 0 {
		t.Errorf("unmatched = %v, want none", p.Unmatched.List())
	}
}

// A source names a Federated ID by a username the service does not know,
// with the email of an existing Federated ID (known by its email or by
// another username): the email is the account, so its username changed. A
// create would find that account (the service keys creates by email) and
// the account would be removed as unmatched: the two would alternate on
// every run.
func TestDiffMatchesARenamedUsernameByEmail(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{
		{Type: FederatedID, Email: "m1@x.com", Username: "m1@x.com", Domain: "x.com", FirstName: "M", LastName: "One", Country: "US", Groups: []string{"Dev"}},
		{Type: FederatedID, Email: "mo@x.com", Username: "mover", Domain: "x.com", FirstName: "Mo", LastName: "V", Country: "US"},
		{Type: EnterpriseID, Email: "e@x.com", FirstName: "E", LastName: "E", Country: "US"},
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{
		{Type: FederatedID, Email: "M1@x.com", Username: "m.one", Domain: "x.com", FirstName: "M", LastName: "One", Country: "US", Groups: []string{"Dev"}},
		{Type: FederatedID, Email: "mo@x.com", Username: "mover2", Domain: "x.com", FirstName: "Mo", LastName: "V", Country: "US", Groups: []string{"Dev"}},
		{Type: FederatedID, Email: "e@x.com", Username: "efed", Domain: "x.com", FirstName: "E", LastName: "E", Country: "US"}, // another type: another account
	}...)}
	for _, allow := range []bool{false, true} {
		pol := basePolicy()
		pol.Unmatched = RemoveUsers
		pol.Update.Username = allow
		p, err := Diff(des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range p.Changes {
			got = append(got, string(c.Kind)+" "+c.Key())
		}
		want := []string{"create efed@x.com", "update mover@x.com", "remove e@x.com"}
		if allow {
			want = slices.Insert(want, 1, "update m1@x.com")
		}
		if len(got) != len(want) {
			t.Fatalf("username updates %v: changes %q, want %q", allow, got, want)
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("username updates %v: change %d = %q, want %q…", allow, i, got[i], want[i])
			}
		}
		if c := findChange(p, KindUpdate, "mover@x.com"); allow && (c.Set == nil || c.Set.Username == nil || *c.Set.Username != "mover2") {
			t.Errorf("update of mover = %s, want username=mover2", show(c))
		}
	}
}

func TestDiffUpdatesOnlyAllowedAttributes(t *testing.T) {
	t.Parallel()
	fed := User{Type: FederatedID, Email: "f@x.com", Username: "fu", Domain: "x.com", FirstName: "F", LastName: "L", Country: "US"}
	cur := &Current{Users: UsersOf([]User{ent("a@x.com", "A"), fed}...)}
	wantFed := fed
	wantFed.FirstName, wantFed.LastName, wantFed.Country, wantFed.Email = "F2", "L2", "DE", "f2@x.com"
	wantA := ent("a@x.com", "A2")
	wantA.LastName, wantA.Country, wantA.Username = "L2", "DE", "ignored@x.com"
	des := Desired{Complete: true, Users: UsersOf([]User{wantA, wantFed}...)}
	for _, tc := range []struct {
		allow Attributes
		want  map[string]string // key -> attributes set
	}{
		{Attributes{}, map[string]string{}},
		{Attributes{FirstName: true}, map[string]string{"a@x.com": "firstname=A2", "fu@x.com": "firstname=F2"}},
		{Attributes{LastName: true, Email: true}, map[string]string{"a@x.com": "lastname=L2", "fu@x.com": "lastname=L2 email=f2@x.com"}},
	} {
		pol := basePolicy()
		pol.Update = tc.allow
		p, err := Diff(des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range p.Changes {
			if c.Kind != KindUpdate || c.Set == nil {
				t.Fatalf("%+v: unexpected change %s", tc.allow, show(c))
			}
			var set []string
			for _, a := range []struct {
				name string
				v    *string
			}{{"firstname", c.Set.FirstName}, {"lastname", c.Set.LastName}, {"email", c.Set.Email}, {"username", c.Set.Username}} {
				if a.v != nil {
					set = append(set, a.name+"="+*a.v)
				}
			}
			got[c.Key()] = strings.Join(set, " ")
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("allow %+v: updates %v, want %v (never country)", tc.allow, got, tc.want)
		}
	}
}

// Held groups are not removed from their user (a source could not confirm
// them); the plan notes each one kept, and other removals go on.
func TestDiffHeldGroupsAreNotRemoved(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{
		ent("ann@x.com", "Ann", "Design", "Dev"),
		ent("bob@x.com", "Bob", "Design", "Dev"),
	}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{ent("ann@x.com", "Ann"), ent("bob@x.com", "Bob")}...),
		Held: map[string][]string{"ann@x.com": {"design"}}}
	p, err := Diff(des, cur, validPolicy(t, basePolicy()))
	if err != nil {
		t.Fatal(err)
	}
	if c := findChange(p, KindUpdate, "ann@x.com"); c == nil || !slices.Equal(c.Remove, []string{"Dev"}) {
		t.Errorf("ann = %+v, want only Dev removed (Design held)", c)
	}
	if c := findChange(p, KindUpdate, "bob@x.com"); c == nil || !slices.Equal(c.Remove, []string{"Design", "Dev"}) {
		t.Errorf("bob = %+v, want both removed (nothing held for bob)", c)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "ann@x.com keeps Design") {
		t.Errorf("notes = %q, want one saying ann keeps Design", p.Notes)
	}
}
