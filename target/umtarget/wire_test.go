package umtarget

import (
	"fmt"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// A user is named by email unless it is a Federated ID known by a username
// whose email is outside its domain, or the entry creates it (the root
// gives the new account its username).
func TestWireEntryRoots(t *testing.T) {
	t.Parallel()
	add := reconcile.Step{Kind: reconcile.StepAdd, Groups: []string{"G"}}
	fed := func(username, email string) *reconcile.User {
		return &reconcile.User{Type: reconcile.FederatedID, Username: username, Email: email, Domain: "corp.com", Country: "US"}
	}
	create := func(u *reconcile.User) reconcile.Step { return reconcile.Step{Kind: reconcile.StepCreate, Create: u} }
	tests := []struct {
		name       string
		entry      reconcile.Entry
		user, dom  string
		vendorFlag bool
	}{
		{"email in its domain", reconcile.Entry{User: fed("jdoe", "jane@corp.com"), Steps: []reconcile.Step{add}}, "jane@corp.com", "", false},
		{"email in its domain, letter case", reconcile.Entry{User: fed("jdoe", "jane@CORP.com"), Steps: []reconcile.Step{add}}, "jane@CORP.com", "", false},
		{"email elsewhere", reconcile.Entry{User: fed("jdoe", "jane@partner.com"), Steps: []reconcile.Step{add}}, "jdoe", "corp.com", false},
		{"no email", reconcile.Entry{User: fed("jdoe", ""), Steps: []reconcile.Step{add}}, "jdoe", "corp.com", false},
		{"created", reconcile.Entry{User: fed("jdoe", "jane@corp.com"), Steps: []reconcile.Step{create(fed("jdoe", "jane@corp.com")), add}}, "jdoe", "corp.com", false},
		{"email username", reconcile.Entry{User: fed("jane@corp.com", "jane@corp.com"), Steps: []reconcile.Step{add}}, "jane@corp.com", "", false},
		{"independent ID", reconcile.Entry{User: &reconcile.User{Type: reconcile.VendorID, Email: "v@gmail.com"}, Steps: []reconcile.Step{add}}, "v@gmail.com", "", true},
	}
	for _, tc := range tests {
		w, err := WireEntry(&tc.entry)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if w.User != tc.user || w.Domain != tc.dom || w.UseVendorID != tc.vendorFlag {
			t.Errorf("%s: root %q domain %q useVendorID %v; want %q %q %v", tc.name, w.User, w.Domain, w.UseVendorID, tc.user, tc.dom, tc.vendorFlag)
		}
	}
}

// addVendorID asks to leave an existing independent ID (or its pending
// invite) as it is: an update of an independent ID fails (rule 6).
func TestWireAddVendorIDIgnoresExisting(t *testing.T) {
	t.Parallel()
	v := &reconcile.User{Type: reconcile.VendorID, Email: "v@gmail.com", Country: "US"}
	w, err := WireEntry(&reconcile.Entry{User: v, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: v}}})
	if err != nil || len(w.Do) != 1 || w.Do[0].AddVendorID == nil || w.Do[0].AddVendorID.Option != umwire.OptionIgnoreIfExists {
		t.Errorf("addVendorID step = %+v, want option %s", w.Do, umwire.OptionIgnoreIfExists)
	}
	e := &reconcile.User{Type: reconcile.EnterpriseID, Email: "e@corp.com", FirstName: "E", LastName: "L"}
	w, err = WireEntry(&reconcile.Entry{User: e, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: e}}})
	if err != nil || w.Do[0].CreateEnterpriseID == nil || w.Do[0].CreateEnterpriseID.Option != umwire.OptionUpdateIfExists {
		t.Errorf("createEnterpriseID step = %+v, want option %s", w.Do, umwire.OptionUpdateIfExists)
	}
}

// Every entry the reconciler packs, from a plan of every kind sent as
// action entries (with group-rooted memberships too), goes on the wire.
func TestWireEntryTakesEveryPackedStep(t *testing.T) {
	t.Parallel()
	user := func(i int, typ reconcile.IdentityType) reconcile.User {
		return reconcile.User{Type: typ, Email: fmt.Sprintf("u%02d@example.com", i), FirstName: "F", LastName: "L", Country: "US"}
	}
	p := &reconcile.Plan{UserGroups: []string{"G", "New"}}
	p.Changes = append(p.Changes, reconcile.Change{Kind: reconcile.KindCreateGroup, Group: "New"})
	for i := range 30 { // enough members of G and New for group-rooted entries
		u := user(i, reconcile.EnterpriseID)
		p.Changes = append(p.Changes, reconcile.Change{Kind: reconcile.KindUpdate, User: u, Add: []string{"New"}, Remove: []string{"G"}})
	}
	first, upd := "First", user(40, reconcile.EnterpriseID)
	p.Changes = append(p.Changes,
		reconcile.Change{Kind: reconcile.KindCreate, User: user(41, reconcile.FederatedID), Add: []string{"G"}},
		reconcile.Change{Kind: reconcile.KindCreate, User: user(42, reconcile.EnterpriseID)},
		reconcile.Change{Kind: reconcile.KindUpdate, User: upd, Set: &reconcile.Attrs{FirstName: &first}},
		reconcile.Change{Kind: reconcile.KindUpdate, User: user(46, reconcile.EnterpriseID), Remove: []string{"Profile"}},
		reconcile.Change{Kind: reconcile.KindRemove, User: user(43, reconcile.EnterpriseID)},
		reconcile.Change{Kind: reconcile.KindDelete, User: user(44, reconcile.EnterpriseID)})
	p.InviteGroups = []reconcile.Change{{Kind: reconcile.KindInviteGroups, User: user(45, reconcile.VendorID), Add: []string{"G"}}}
	seen := map[string]bool{}
	for _, req := range p.Batches(reconcile.DefaultLimits()) {
		for i := range req.Entries {
			e := &req.Entries[i]
			if _, err := WireEntry(e); err != nil {
				t.Errorf("entry %s: %v", e.Target(), err)
			}
			for _, s := range e.Steps {
				seen[fmt.Sprintf("%v %s", e.User == nil, s.Kind)] = true
			}
		}
	}
	for _, want := range []string{"false create", "false update", "false add", "false remove", "false removeFromOrg",
		"true createUserGroup", "true add", "true remove"} {
		if !seen[want] {
			t.Errorf("no entry held %q (group-rooted, step); the plan does not cover every step: %v", want, seen)
		}
	}
}
