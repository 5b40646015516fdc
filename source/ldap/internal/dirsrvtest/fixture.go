package dirsrvtest

import (
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/source/ldap/dirsrv"
)

// Where FreeIPA keeps its entries under the suffix, and the fixture's
// accounts orgsync binds as (each with the password AccountPassword).
const (
	Suffix   = dirsrv.Suffix
	Accounts = "cn=accounts," + Suffix
	Users    = "cn=users," + Accounts
	Groups   = "cn=groups," + Accounts
	Staged   = "cn=staged users,cn=accounts,cn=provisioning," + Suffix
	Deleted  = "cn=deleted users,cn=accounts,cn=provisioning," + Suffix
	// Legacy is a branch outside cn=accounts with groups of its own.
	Legacy      = "cn=legacy," + Suffix
	SysAccounts = "cn=sysaccounts,cn=etc," + Suffix
	// People is where BulkUsers puts its users.
	People = "ou=people," + Suffix
	// Reader is orgsync's system account as documented: read rights on
	// everything but passwords, and no size or look-through limit.
	Reader = "uid=orgsync," + SysAccounts
	// Limited is a system account with the server's limits.
	Limited = "uid=limited," + SysAccounts
	// NoGroups is a system account that may not read cn=groups.
	NoGroups = "uid=nogroups," + SysAccounts
	// NoLock is a system account that may not read nsAccountLock.
	NoLock          = "uid=nolock," + SysAccounts
	AccountPassword = "Orgsync-Reader-1"
	MailDomain      = "example.com"
	// BigGroupSize is the members of the group big: more than SizeLimit.
	BigGroupSize = 1200
	// SizeLimit and LookThroughLimit are the server's limits (389-ds's
	// defaults are 2000 and 5000): the fixture's 1,200-member group is
	// over the size limit, and its users over the look-through limit.
	SizeLimit        = 500
	LookThroughLimit = 1000
)

// Fixture is FreeIPA's tree with:
//   - under cn=users,cn=accounts: alice (given name and surname),
//     bob, dave, frank, gina, jose (José Núñez) and wei (王伟), enabled
//     with mail; emil, enabled with nsAccountLock: FALSE; carol, without
//     mail (a bad record); lena, lars and liv, locked (nsAccountLock TRUE,
//     true and True); bulk0000 to bulk1199, all in big
//   - under cn=groups,cn=accounts (groupOfNames): engineering holds alice
//     and platform, which holds bob and lena (nested); big; and finance, a
//     groupOfUniqueNames holding dave
//   - under cn=legacy: legacy-ops (groupOfNames) holds frank, legacy-audit
//     (groupOfUniqueNames) holds gina: both outside groups.baseDN, the
//     first known through memberOf, the second not at all (the memberOf
//     plugin tracks member only)
//   - under cn=provisioning: stan (staged) and percy (preserved), both
//     with mail and in no group
//   - under cn=sysaccounts,cn=etc: Reader, Limited, NoGroups and NoLock
//
// Authenticated accounts may read everything but passwords; anonymous
// binds see nothing but the root DSE.
func Fixture() string {
	var b strings.Builder
	b.WriteString(base)
	for _, u := range []struct{ uid, attrs string }{
		{"alice", "givenName: Alice\nsn: Archer\n"},
		{"bob", "givenName: Bob\nsn: Builder\n"},
		{"dave", "givenName: Dave\nsn: Doe\n"},
		{"frank", "givenName: Frank\nsn: Doe\n"},
		{"gina", "givenName: Gina\nsn: Doe\n"},
		{"jose", "givenName: José\nsn: Núñez\n"},
		{"wei", "givenName: 伟\nsn: 王\n"},
		{"emil", "givenName: Emil\nsn: Doe\nnsAccountLock: FALSE\n"},
		{"lena", "givenName: Lena\nsn: Doe\nnsAccountLock: TRUE\n"},
		{"lars", "givenName: Lars\nsn: Doe\nnsAccountLock: true\n"},
		{"liv", "givenName: Liv\nsn: Doe\nnsAccountLock: True\n"},
	} {
		person(&b, "uid="+u.uid+","+Users, u.uid, u.attrs+"mail: "+u.uid+"@"+MailDomain+"\n")
	}
	person(&b, "uid=carol,"+Users, "carol", "givenName: Carol\nsn: Doe\n")
	person(&b, "uid=stan,"+Staged, "stan", "givenName: Stan\nsn: Staged\nmail: stan@"+MailDomain+"\n")
	person(&b, "uid=percy,"+Deleted, "percy", "givenName: Percy\nsn: Preserved\nmail: percy@"+MailDomain+"\n")
	big := make([]string, BigGroupSize)
	for i := range big {
		uid := fmt.Sprintf("bulk%04d", i)
		big[i] = "uid=" + uid + "," + Users
		person(&b, big[i], uid, "sn: Bulk\nmail: "+uid+"@"+MailDomain+"\n")
	}
	group(&b, "platform", Groups, "groupOfNames", "member", userDN("bob"), userDN("lena"))
	group(&b, "engineering", Groups, "groupOfNames", "member", userDN("alice"), "cn=platform,"+Groups)
	group(&b, "finance", Groups, "groupOfUniqueNames", "uniqueMember", userDN("dave"))
	group(&b, "big", Groups, "groupOfNames", "member", big...)
	group(&b, "legacy-ops", Legacy, "groupOfNames", "member", userDN("frank"))
	group(&b, "legacy-audit", Legacy, "groupOfUniqueNames", "uniqueMember", userDN("gina"))
	for _, a := range []struct{ uid, limits string }{
		{"orgsync", "nsSizeLimit: -1\nnsLookThroughLimit: -1\n"}, {"limited", ""}, {"nogroups", "nsSizeLimit: -1\nnsLookThroughLimit: -1\n"},
		{"nolock", "nsSizeLimit: -1\nnsLookThroughLimit: -1\n"},
	} {
		fmt.Fprintf(&b, "dn: uid=%s,%s\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: %s\nuserPassword: %s\n%s\n",
			a.uid, SysAccounts, a.uid, AccountPassword, a.limits)
	}
	return b.String()
}

func userDN(uid string) string { return "uid=" + uid + "," + Users }

// person adds a FreeIPA user entry.
func person(b *strings.Builder, dn, uid, attrs string) {
	fmt.Fprintf(b, "dn: %s\nobjectClass: top\nobjectClass: person\nobjectClass: organizationalPerson\nobjectClass: inetOrgPerson\nobjectClass: inetUser\nuid: %s\ncn: %s\n%s\n",
		dn, uid, uid, attrs)
}

func group(b *strings.Builder, cn, parent, class, attr string, members ...string) {
	fmt.Fprintf(b, "dn: cn=%s,%s\nobjectClass: top\nobjectClass: %s\ncn: %s\n", cn, parent, class, cn)
	for _, m := range members {
		fmt.Fprintf(b, "%s: %s\n", attr, m)
	}
	b.WriteString("\n")
}

// base is the suffix with its access rules, and the containers.
const base = `dn: ` + Suffix + `
objectClass: top
objectClass: domain
dc: example
aci: (targetattr != "userPassword")(version 3.0; acl "Authenticated accounts read all but passwords"; allow (read, search, compare) userdn = "ldap:///all";)

dn: ` + Accounts + `
objectClass: top
objectClass: nsContainer
cn: accounts

dn: ` + Users + `
objectClass: top
objectClass: nsContainer
cn: users
aci: (targetattr = "nsAccountLock")(version 3.0; acl "nolock may not read nsAccountLock"; deny (all) userdn = "ldap:///` + NoLock + `";)

dn: ` + Groups + `
objectClass: top
objectClass: nsContainer
cn: groups
aci: (targetattr = "*")(version 3.0; acl "nogroups may not read groups"; deny (all) userdn = "ldap:///` + NoGroups + `";)

dn: cn=provisioning,` + Suffix + `
objectClass: top
objectClass: nsContainer
cn: provisioning

dn: cn=accounts,cn=provisioning,` + Suffix + `
objectClass: top
objectClass: nsContainer
cn: accounts

dn: ` + Staged + `
objectClass: top
objectClass: nsContainer
cn: staged users

dn: ` + Deleted + `
objectClass: top
objectClass: nsContainer
cn: deleted users

dn: ` + Legacy + `
objectClass: top
objectClass: nsContainer
cn: legacy

dn: cn=etc,` + Suffix + `
objectClass: top
objectClass: nsContainer
cn: etc

dn: ` + SysAccounts + `
objectClass: top
objectClass: nsContainer
cn: sysaccounts

`

// BulkUsers is a directory of n users under ou=people (uid u000001 …,
// cn "User 1" …, with mail, given name and surname) and the system
// accounts Reader (no limits) and Limited (the server's), for benchmarks.
func BulkUsers(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dn: %s\nobjectClass: top\nobjectClass: domain\ndc: example\naci: (targetattr != \"userPassword\")(version 3.0; acl \"Authenticated accounts read all but passwords\"; allow (read, search, compare) userdn = \"ldap:///all\";)\n\n", Suffix)
	for _, c := range []string{"cn=etc", "cn=sysaccounts,cn=etc"} {
		fmt.Fprintf(&b, "dn: %s,%s\nobjectClass: top\nobjectClass: nsContainer\ncn: %s\n\n", c, Suffix, strings.TrimPrefix(strings.Split(c, ",")[0], "cn="))
	}
	for _, a := range []struct{ uid, limits string }{{"orgsync", "nsSizeLimit: -1\nnsLookThroughLimit: -1\n"}, {"limited", ""}} {
		fmt.Fprintf(&b, "dn: uid=%s,%s\nobjectClass: account\nobjectClass: simpleSecurityObject\nuid: %s\nuserPassword: %s\n%s\n",
			a.uid, SysAccounts, a.uid, AccountPassword, a.limits)
	}
	fmt.Fprintf(&b, "dn: %s\nobjectClass: top\nobjectClass: organizationalUnit\nou: people\n\n", People)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "dn: uid=u%06d,%s\nobjectClass: inetOrgPerson\nuid: u%06d\ncn: User %d\ngivenName: Given%d\nsn: Family%d\nmail: u%06d@%s\n\n",
			i, People, i, i, i, i, i, MailDomain)
	}
	return b.String()
}
