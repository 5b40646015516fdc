//go:build !windows

package ldap

import "errors"

// sspiBind says that SSPI is Windows'.
func (c *wireConn) sspiBind(string) error {
	return errors.New("kerberos.sspi works on Windows only (SSPI): elsewhere bind with kerberos.keytab, kerberos.ccache or password")
}
