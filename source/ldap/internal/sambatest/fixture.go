package sambatest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/samba"
)

// Where the fixture's entries are, and its service account.
const (
	People       = "OU=People," + samba.BaseDN
	Groups       = "OU=Groups," + samba.BaseDN
	Other        = "OU=Other," + samba.BaseDN
	Bulk         = "OU=Bulk," + People
	ServiceName  = "svc-orgsync"
	ServiceDN    = "CN=" + ServiceName + ",CN=Users," + samba.BaseDN
	ServiceUPN   = ServiceName + "@" + samba.DNSDomain
	ServicePass  = "Svc-Orgsync-Secret-1"
	MailDomain   = "corp.example.com"
	BigGroupSize = 1600 // more than the 1,500 values Windows returns of an attribute at once
)

// userAccountControl values: a normal account whose password is not
// required, enabled and disabled (bit 2, ACCOUNTDISABLE).
const (
	enabled  = "544"
	disabled = "546"
)

// Fixture is the test domain's contents, under OUs People, Groups and
// Other:
//   - alice, bob, dave and frank: enabled, with mail; alice has a
//     userPrincipalName, given name, surname and country (DE)
//   - carol: enabled, without mail (a bad record)
//   - erin: disabled (not read by the default filter)
//   - gina: primary group Field (primaryGroupID), in no member list
//   - bulk0000..bulk1599 in OU=Bulk under People, all in "Big"
//   - Staff holds Engineering, which holds alice and Platform, which holds
//     bob and erin (nested groups); legacy-finance (under Other, outside
//     OU=Groups) holds dave
func Fixture() string {
	var b strings.Builder
	for _, ou := range []string{People, Groups, Other, Bulk} {
		fmt.Fprintf(&b, "dn: %s\nobjectClass: organizationalUnit\n\n", ou)
	}
	user(&b, "alice", enabled, "mail: alice@"+MailDomain, "userPrincipalName: alice@"+samba.DNSDomain,
		"givenName: Alice", "sn: Archer", "c: DE")
	for _, name := range []string{"bob", "dave", "frank", "gina"} {
		user(&b, name, enabled, "mail: "+name+"@"+MailDomain, "givenName: "+strings.ToUpper(name[:1])+name[1:], "sn: Doe")
	}
	user(&b, "carol", enabled, "givenName: Carol")
	user(&b, "erin", disabled, "mail: erin@"+MailDomain)
	big := make([]string, BigGroupSize)
	for i := range big {
		name := fmt.Sprintf("bulk%04d", i)
		fmt.Fprintf(&b, "dn: CN=%s,%s\nobjectClass: user\nsAMAccountName: %s\nuserAccountControl: %s\nmail: %s@%s\nsn: Bulk\n\n",
			name, Bulk, name, enabled, name, MailDomain)
		big[i] = "CN=" + name + "," + Bulk
	}
	group(&b, "Platform", Groups, userDN("bob"), userDN("erin"))
	group(&b, "Engineering", Groups, userDN("alice"), groupDN("Platform"))
	group(&b, "Staff", Groups, groupDN("Engineering"))
	group(&b, "Field", Groups, userDN("gina"))
	group(&b, "Big", Groups, big...)
	group(&b, "legacy-finance", Other, userDN("dave"))
	serviceAccount(&b)
	return b.String()
}

// serviceAccount adds orgsync's account, outside the people.
func serviceAccount(b *strings.Builder) {
	fmt.Fprintf(b, "dn: %s\nobjectClass: user\nsAMAccountName: %s\nuserPrincipalName: %s\nuserAccountControl: %s\n\n",
		ServiceDN, ServiceName, ServiceUPN, enabled)
}

// FixturePasswords are the fixture's passwords: the service account's.
func FixturePasswords() map[string]string {
	return map[string]string{ServiceName: ServicePass}
}

// primaryGroups are the fixture's primary groups other than Domain Users:
// a user's primaryGroupID is a RID, known only once the group exists.
var primaryGroups = map[string]string{"gina": "Field"}

func userDN(name string) string  { return "CN=" + name + "," + People }
func groupDN(name string) string { return "CN=" + name + "," + Groups }

func user(b *strings.Builder, name, uac string, attrs ...string) {
	fmt.Fprintf(b, "dn: %s\nobjectClass: user\nsAMAccountName: %s\nuserAccountControl: %s\n", userDN(name), name, uac)
	for _, a := range attrs {
		b.WriteString(a + "\n")
	}
	b.WriteString("\n")
}

func group(b *strings.Builder, name, ou string, members ...string) {
	fmt.Fprintf(b, "dn: CN=%s,%s\nobjectClass: group\nsAMAccountName: %s\n", name, ou, name)
	for _, m := range members {
		b.WriteString("member: " + m + "\n")
	}
	b.WriteString("\n")
}

// setPrimaryGroups makes each user of primaryGroups a primary member of
// its group: Active Directory then drops the user from the group's member
// list, so the membership is seen only through primaryGroupID.
func (s *Server) setPrimaryGroups(primaryGroups map[string]string) error {
	if len(primaryGroups) == 0 {
		return nil
	}
	conn, err := s.Admin()
	if err != nil {
		return err
	}
	defer conn.Close()
	for user, grp := range primaryGroups {
		res, err := conn.Search(ldap3.NewSearchRequest(groupDN(grp), ldap3.ScopeBaseObject, ldap3.NeverDerefAliases, 0, 0, false,
			"(objectClass=group)", []string{"objectSid"}, nil))
		if err != nil || len(res.Entries) != 1 {
			return fmt.Errorf("reading the SID of %s: %v", grp, err)
		}
		sid := res.Entries[0].GetRawAttributeValue("objectSid")
		if len(sid) < 4 {
			return fmt.Errorf("%s has no SID", grp)
		}
		rid := binary.LittleEndian.Uint32(sid[len(sid)-4:])
		mod := ldap3.NewModifyRequest(userDN(user), nil)
		mod.Replace("primaryGroupID", []string{fmt.Sprint(rid)})
		if err := conn.Modify(mod); err != nil {
			return fmt.Errorf("setting the primary group of %s: %w", user, err)
		}
	}
	return nil
}

// tlsConfig trusts the test CA.
func (s *Server) tlsConfig() *tls.Config {
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(s.TLS.CAFile); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	return &tls.Config{RootCAs: pool, ServerName: samba.Address, MinVersion: tls.VersionTLS12}
}

// BulkUsers is a domain of n enabled users with mail under OU=Bulk
// (bulk000000, ...) and the service account (FixturePasswords), for
// benchmarks.
func BulkUsers(n int) string {
	var b strings.Builder
	serviceAccount(&b)
	for _, ou := range []string{People, Bulk} {
		fmt.Fprintf(&b, "dn: %s\nobjectClass: organizationalUnit\n\n", ou)
	}
	for i := range n {
		name := fmt.Sprintf("bulk%06d", i)
		fmt.Fprintf(&b, "dn: CN=%s,%s\nobjectClass: user\nsAMAccountName: %s\nuserAccountControl: %s\nmail: %s@%s\ngivenName: Bulk\nsn: %s\n\n",
			name, Bulk, name, enabled, name, MailDomain, name)
	}
	return b.String()
}
