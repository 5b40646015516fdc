package umtarget

import (
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// A user is named by email unless it is a Federated ID known by a username
// whose email is outside its domain, or the entry creates it (the root
// gives the new account its username).
func TestWireEntryRoots(t *testing.T) {
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
		w := WireEntry(&tc.entry)
		if w.User != tc.user || w.Domain != tc.dom || w.UseVendorID != tc.vendorFlag {
			t.Errorf("%s: root %q domain %q useVendorID %v; want %q %q %v", tc.name, w.User, w.Domain, w.UseVendorID, tc.user, tc.dom, tc.vendorFlag)
		}
	}
}

// addVendorID asks to leave an existing independent ID (or its pending
// invite) as it is: an update of an independent ID fails (rule 6).
func TestWireAddVendorIDIgnoresExisting(t *testing.T) {
	v := &reconcile.User{Type: reconcile.VendorID, Email: "v@gmail.com", Country: "US"}
	w := WireEntry(&reconcile.Entry{User: v, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: v}}})
	if len(w.Do) != 1 || w.Do[0].AddVendorID == nil || w.Do[0].AddVendorID.Option != umwire.OptionIgnoreIfExists {
		t.Errorf("addVendorID step = %+v, want option %s", w.Do, umwire.OptionIgnoreIfExists)
	}
	e := &reconcile.User{Type: reconcile.EnterpriseID, Email: "e@corp.com", FirstName: "E", LastName: "L"}
	w = WireEntry(&reconcile.Entry{User: e, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: e}}})
	if w.Do[0].CreateEnterpriseID == nil || w.Do[0].CreateEnterpriseID.Option != umwire.OptionUpdateIfExists {
		t.Errorf("createEnterpriseID step = %+v, want option %s", w.Do, umwire.OptionUpdateIfExists)
	}
}
