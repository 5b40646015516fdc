package ldap

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// Flavors of directory server. The flavor chooses the default filters and
// membership modes, how nested groups and primary groups are resolved,
// which accounts count as locked, the layout, and what a limit the server
// hits is called there.
const (
	FlavorOpenLDAP        = "openldap"
	FlavorActiveDirectory = "activedirectory"
	// Flavor389DS is 389 Directory Server, which Red Hat Directory Server
	// and FreeIPA are built on.
	Flavor389DS = "389ds"
	// FlavorFreeIPA is 389 Directory Server with FreeIPA's layout: users
	// and groups under cn=users and cn=groups of cn=accounts, staged and
	// preserved users under cn=provisioning.
	FlavorFreeIPA = "freeipa"
)

// LockedFilter selects the accounts 389 Directory Server (and FreeIPA)
// lock: nsAccountLock is true, in any letter case (389-ds compares the
// attribute's values ignoring case).
const LockedFilter = "(nsAccountLock=true)"

// Where FreeIPA keeps accounts, under its suffix.
const (
	ipaUsers = "cn=users,cn=accounts"
	// ipaGroups holds FreeIPA's user groups.
	ipaGroups = "cn=groups,cn=accounts"
	// ipaProvisioning holds staged users (cn=staged users) and preserved
	// ones (cn=deleted users): never users to sync.
	ipaProvisioning = "cn=accounts,cn=provisioning"
)

// flavor is what a kind of directory server changes in a read.
type flavor struct {
	userFilter, groupFilter string
	membership              modes // the default membership modes
	// locked selects the accounts the server marks locked, left out of
	// every user search unless users.includeLocked ("": none are marked
	// this way; Active Directory's default filter leaves disabled
	// accounts out itself).
	locked string
	// inChain: the server answers member with
	// LDAP_MATCHING_RULE_IN_CHAIN (Active Directory).
	inChain bool
	// ipa: FreeIPA's layout (see FlavorFreeIPA).
	ipa bool
	// limits says which settings stopped a search with a size or
	// administrative limit, and how to lift them.
	limits func(code uint16, bind string, pageSize int) string
}

// flavors are the flavors by their configuration name.
var flavors = map[string]flavor{
	FlavorOpenLDAP: {userFilter: OpenLDAPUserFilter, groupFilter: OpenLDAPGroupFilter,
		membership: modes{member: true, uniqueMember: true, memberUID: true}, limits: slapdLimits},
	FlavorActiveDirectory: {userFilter: ADUserFilter, groupFilter: ADGroupFilter,
		membership: modes{member: true, memberOf: true, primary: true}, inChain: true, limits: adLimits},
	Flavor389DS: {userFilter: OpenLDAPUserFilter, groupFilter: OpenLDAPGroupFilter,
		membership: modes{member: true, uniqueMember: true, memberUID: true, memberOf: true}, locked: LockedFilter, limits: dirsrvLimits},
	FlavorFreeIPA: {userFilter: OpenLDAPUserFilter, groupFilter: OpenLDAPGroupFilter,
		membership: modes{member: true, uniqueMember: true, memberUID: true, memberOf: true}, locked: LockedFilter, ipa: true, limits: dirsrvLimits},
}

// flavorNames lists the flavors for messages.
func flavorNames() string {
	names := slices.Sorted(maps.Keys(flavors))
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// rootDSE is what the source reads of the server's root DSE.
type rootDSE struct {
	flavor string
	suffix string // the default naming context, "" when the server names none
}

// rootDSEAttributes are the attributes rootDSEOf reads.
var rootDSEAttributes = []string{"supportedCapabilities", "vendorName", "vendorVersion", "defaultNamingContext", "namingContexts"}

// rootDSEOf reads the flavor and the suffix from a root DSE entry: Active
// Directory lists LDAP_CAP_ACTIVE_DIRECTORY_OID among its
// supportedCapabilities; 389 Directory Server (Red Hat Directory Server,
// FreeIPA) names itself in vendorVersion ("389-Directory/2.3.1 …") or
// vendorName; anything else is taken for OpenLDAP. FreeIPA is not told
// from a plain 389 Directory Server: its layout needs flavor: freeipa.
func rootDSEOf(e *ldap3.Entry) rootDSE {
	d := rootDSE{flavor: FlavorOpenLDAP, suffix: e.GetEqualFoldAttributeValue("defaultNamingContext")}
	if contexts := e.GetEqualFoldAttributeValues("namingContexts"); d.suffix == "" && len(contexts) == 1 {
		d.suffix = contexts[0]
	}
	version, vendor := e.GetEqualFoldAttributeValue("vendorVersion"), e.GetEqualFoldAttributeValue("vendorName")
	switch {
	case slices.Contains(e.GetEqualFoldAttributeValues("supportedCapabilities"), adCapabilityOID):
		d.flavor = FlavorActiveDirectory
	case strings.HasPrefix(version, "389-Directory/"), strings.HasPrefix(version, "Red Hat-Directory/"), vendor == "389 Project":
		d.flavor = Flavor389DS
	}
	return d
}

// adCapabilityOID is LDAP_CAP_ACTIVE_DIRECTORY_OID.
const adCapabilityOID = "1.2.840.113556.1.4.800"

// bindAccount is the bind account as messages name it.
func bindAccount(bindDN string) string {
	if bindDN == "" {
		return "an anonymous bind"
	}
	return fmt.Sprintf("the bind account %q", bindDN)
}

// limitHolder is who is to be given limits of its own, in messages.
func limitHolder(bindDN string) string {
	if bindDN == "" {
		return "an account to bind as (bindDN; an anonymous bind has the server's limits)"
	}
	return bindAccount(bindDN)
}

// slapdLimits explains OpenLDAP's limits.
func slapdLimits(code uint16, bind string, pageSize int) string {
	if code == ldap3.LDAPResultAdminLimitExceeded {
		return fmt.Sprintf("slapd's administrative limit: a page larger than size.pr or more candidates than size.unchecked; lower pageSize (%d), or lift them for %s: limits dn.exact=\"<bindDN>\" size.pr=unlimited size.unchecked=unlimited (olcLimits in cn=config)", pageSize, bind)
	}
	return fmt.Sprintf("slapd's size limit: a paged search returns at most size.prtotal entries, which defaults to the hard size limit (sizelimit in slapd.conf, olcSizeLimit in cn=config); lift it for %s: limits dn.exact=\"<bindDN>\" size.prtotal=unlimited (olcLimits in cn=config)", bind)
}

// dirsrvLimits explains 389 Directory Server's limits.
func dirsrvLimits(code uint16, bind string, pageSize int) string {
	if code == ldap3.LDAPResultAdminLimitExceeded {
		return fmt.Sprintf("389 Directory Server's look-through limit: one search, all its pages together, may examine at most nsslapd-lookthroughlimit entries (5000 unless changed, in cn=config,cn=ldbm database,cn=plugins,cn=config); give %s nsLookThroughLimit: -1 (or nsPagedLookThroughLimit: -1), or raise the server's limit", bind)
	}
	return fmt.Sprintf("389 Directory Server's size limit: a page of pageSize (%d) entries is stopped at nsslapd-sizelimit (2000 unless changed, in cn=config); give %s nsSizeLimit: -1 (or nsPagedSizeLimit: -1, for paged searches only), or set pageSize below the server's limit", pageSize, bind)
}

// adLimits explains Active Directory's limits, which are the same for
// every account.
func adLimits(_ uint16, _ string, pageSize int) string {
	return fmt.Sprintf("the domain's LDAP policy (ntdsutil \"ldap policies\": MaxPageSize caps a page, MaxResultSetSize what a paged search may hold): lower pageSize (%d), or raise the policy", pageSize)
}
