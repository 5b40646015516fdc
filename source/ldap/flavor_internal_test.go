package ldap

import (
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// The root DSE tells Active Directory by its capability, 389 Directory
// Server (and Red Hat Directory Server) by its vendor, and the suffix by
// defaultNamingContext, else the one naming context.
func TestRootDSEOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		attrs         map[string][]string
		flavor, suffx string
	}{
		{"Active Directory", map[string][]string{"supportedCapabilities": {"1.2.840.113556.1.4.800"}, "defaultNamingContext": {"DC=corp,DC=example,DC=com"}},
			FlavorActiveDirectory, "DC=corp,DC=example,DC=com"},
		{"389 Directory Server", map[string][]string{"vendorName": {"389 Project"}, "vendorVersion": {"389-Directory/2.3.1 B2025.016.1616"},
			"namingContexts": {"dc=example,dc=com"}, "defaultnamingcontext": {"dc=example,dc=com"}}, Flavor389DS, "dc=example,dc=com"},
		{"Red Hat Directory Server", map[string][]string{"vendorName": {"Red Hat, Inc."}, "vendorVersion": {"Red Hat-Directory/12.4 B2024.089"},
			"namingContexts": {"dc=example,dc=com", "o=ipaca"}}, Flavor389DS, ""},
		{"OpenLDAP", map[string][]string{"namingContexts": {"dc=example,dc=com"}}, FlavorOpenLDAP, "dc=example,dc=com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := rootDSEOf(ldap3.NewEntry("", tc.attrs))
			if d.flavor != tc.flavor || d.suffix != tc.suffx {
				t.Errorf("rootDSEOf = %+v, want flavor %s, suffix %q", d, tc.flavor, tc.suffx)
			}
		})
	}
}

// Every flavor explains both limits with something to change, never an
// empty reason, and names the bind account where the limit is its own.
func TestEveryFlavorExplainsItsLimits(t *testing.T) {
	t.Parallel()
	for name, fl := range flavors {
		for _, code := range []uint16{ldap3.LDAPResultSizeLimitExceeded, ldap3.LDAPResultAdminLimitExceeded} {
			got := fl.limits(code, `the bind account "uid=svc"`, 1000)
			if len(got) < 60 || (name != FlavorActiveDirectory && !strings.Contains(got, "uid=svc")) {
				t.Errorf("%s, code %d: %q", name, code, got)
			}
		}
	}
}

// The FreeIPA layout puts the base DNs under the suffix, and a suffix the
// server does not name is an error saying what to set.
func TestFreeIPABases(t *testing.T) {
	t.Parallel()
	s := &Source{cfg: Config{Flavor: FlavorFreeIPA}}
	users, groups, err := s.bases(flavors[FlavorFreeIPA], "dc=example,dc=com")
	if err != nil || users != "cn=users,cn=accounts,dc=example,dc=com" || groups != "cn=groups,cn=accounts,dc=example,dc=com" {
		t.Errorf("bases = %q, %q, %v", users, groups, err)
	}
	if _, _, err := s.bases(flavors[FlavorFreeIPA], ""); err == nil || !strings.Contains(err.Error(), "set users.baseDN") {
		t.Errorf("no suffix: %v", err)
	}
	for dn, want := range map[string]bool{
		"uid=stan,cn=staged users,cn=accounts,cn=provisioning,dc=example,dc=com": true,
		"UID=percy, CN=Deleted Users, CN=Accounts, CN=Provisioning, DC=example":  true,
		"uid=alice,cn=users,cn=accounts,dc=example,dc=com":                       false,
		"uid=provisioning,cn=users,cn=accounts,dc=example,dc=com":                false,
	} {
		if provisioned(dn) != want {
			t.Errorf("provisioned(%q) = %t", dn, !want)
		}
	}
}
