package ldap

import (
	"errors"
	"regexp"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// bindName is bindDN taken apart: a DN, a user principal name
// (user@realm) or a down-level logon name (DOMAIN\user), the three forms
// Active Directory accepts.
type bindName struct {
	dn     bool
	user   string // the user part of a principal or logon name
	realm  string // of a user principal name
	domain string // of DOMAIN\user
}

var (
	principalName = regexp.MustCompile(`^([^@\\\s=,]+)@([A-Za-z0-9][A-Za-z0-9.-]*)$`)
	downLevelName = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,14})\\([^@\\\s=,]+)$`)
)

// bindNameForms lists the accepted forms, for messages.
const bindNameForms = `a DN (cn=svc-orgsync,ou=services,dc=corp,dc=example,dc=com), a user principal name (svc-orgsync@corp.example.com) or DOMAIN\user (CORP\svc-orgsync)`

// parseBindName classifies s; an error says which forms are accepted.
func parseBindName(s string) (bindName, error) {
	if m := principalName.FindStringSubmatch(s); m != nil {
		return bindName{user: m[1], realm: m[2]}, nil
	}
	if m := downLevelName.FindStringSubmatch(s); m != nil {
		return bindName{user: m[2], domain: m[1]}, nil
	}
	if strings.Contains(s, "=") {
		if _, err := ldap3.ParseDN(s); err != nil {
			return bindName{}, errors.New("not a DN (" + err.Error() + "): write " + bindNameForms)
		}
		return bindName{dn: true}, nil
	}
	return bindName{}, errors.New("write " + bindNameForms)
}
