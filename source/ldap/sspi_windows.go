package ldap

import (
	ldapgssapi "github.com/go-ldap/ldap/v3/gssapi"
)

// sspiBind runs a SASL GSSAPI bind (RFC 4752) as the account orgsync runs
// as, through Windows' SSPI (go-ldap's SSPI client), over TLS: the
// security layer it answers is none.
func (c *wireConn) sspiBind(spn string) error {
	cl, err := ldapgssapi.NewSSPIClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	return gssapiExchange(c, cl, spn)
}
