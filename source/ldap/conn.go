package ldap

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/secret"
)

// connect tries each server URL in turn and returns the first connection
// that is up, upgraded to TLS when asked and bound. A server that cannot
// be reached (refused, timed out, failed ldaps:// handshake) moves on to
// the next URL; a failed StartTLS or bind (wrong password) stops at once,
// since another replica would answer the same.
func (s *Source) connect(ctx context.Context) (*wireConn, string, error) {
	password, err := s.loadPassword()
	if err != nil {
		return nil, "", err
	}
	var errs []error
	for i, u := range s.cfg.urls() {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		tc, err := s.tlsConfig(u)
		if err != nil {
			return nil, "", err
		}
		r := s.reach(i, u)
		conn, err := dialWire(u, tc, s.cfg.ConnectTimeout)
		if err != nil {
			errs = append(errs, cmp.Or(r.classify(err, false), fmt.Errorf("%s: connect: %w", u, s.explainTLS(err))))
			continue
		}
		conn.timeout = s.cfg.ConnectTimeout
		if err := s.secureAndBind(conn, tc, password, u); err != nil {
			conn.Close()
			if ue := r.classify(err, true); ue != nil {
				errs = append(errs, ue)
				continue
			}
			return nil, "", fmt.Errorf("%s: %w", u, err)
		}
		conn.timeout = s.cfg.SearchTimeout
		return conn, u, nil
	}
	if len(errs) == 1 {
		return nil, "", errs[0]
	}
	return nil, "", fmt.Errorf("no LDAP server answered: %w", oneLine(errs))
}

// oneLine is several servers' errors, told in one line.
type oneLine []error

func (e oneLine) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e oneLine) Unwrap() []error { return e }

// reach is what to check for the i-th server URL, u.
func (s *Source) reach(i int, u string) reach {
	return reach{url: u, key: s.key(s.cfg.urlKey(i)), timeoutKey: s.key("connectTimeout"), timeout: s.cfg.ConnectTimeout}
}

// key is the full key path of a key of the source's block
// (sources[0].ldap.url), or the key alone when the path is not known.
func (s *Source) key(k string) string {
	if s.blockKey == "" {
		return k
	}
	return s.blockKey + "." + k
}

func (s *Source) loadPassword() (secret.Value, error) {
	if !s.cfg.Password.IsSet() {
		return "", nil
	}
	pw, err := s.cfg.Password.Load()
	if err != nil {
		return "", fmt.Errorf("password: %w", err)
	}
	return pw, nil
}

// secureAndBind runs StartTLS when configured, then binds.
func (s *Source) secureAndBind(conn *wireConn, tc *tls.Config, password secret.Value, url string) error {
	if s.cfg.StartTLS {
		if err := conn.startTLS(tc); err != nil {
			return fmt.Errorf("StartTLS: %w", s.explainTLS(err))
		}
	}
	switch {
	case s.cfg.Bind == BindKerberos && s.cfg.Kerberos.SSPI:
		if err := conn.sspiBind(s.spn(url)); err != nil {
			return fmt.Errorf("Kerberos bind through SSPI as the account orgsync runs as to %s: %w", s.spn(url), err)
		}
		return nil
	case s.cfg.Bind == BindKerberos:
		cl, err := s.kerberosClient(password)
		if err != nil {
			return err
		}
		if err := conn.kerberosBind(cl, s.spn(url), conn.isTLS()); err != nil {
			return fmt.Errorf("Kerberos bind as %q to %s: %w", s.cfg.BindDN, s.spn(url), saslOverTLS(conn, err))
		}
		return nil
	case s.cfg.Bind == BindNTLM:
		return s.ntlmBind(conn, password)
	case s.cfg.BindDN == "":
		if err := conn.bind("", ""); err != nil {
			return fmt.Errorf("anonymous bind: %w", err)
		}
		return nil
	}
	err := conn.bind(s.cfg.BindDN, password.Reveal())
	switch {
	case err == nil:
		return nil
	case ldap3.IsErrorWithCode(err, ldap3.LDAPResultInvalidCredentials):
		return fmt.Errorf("bind as %q: invalid credentials: check bindDN and the password in %s", s.cfg.BindDN, s.cfg.Password)
	case ldap3.IsErrorWithCode(err, ldap3.LDAPResultStrongAuthRequired):
		return fmt.Errorf("bind as %q: the server refuses a simple bind over a connection without TLS: use ldaps:// or startTLS, or a Kerberos bind (bind: kerberos) (%w)", s.cfg.BindDN, err)
	}
	return fmt.Errorf("bind as %q: %w", s.cfg.BindDN, err)
}

// ntlmBind binds with NTLM as bindDN, with the password or its NT hash.
func (s *Source) ntlmBind(conn *wireConn, password secret.Value) error {
	var hash secret.Value
	if s.cfg.NTHash.IsSet() {
		var err error
		if hash, err = s.cfg.NTHash.Load(); err != nil {
			return fmt.Errorf("ntHash: %w", err)
		}
	}
	cred, err := newNTLMCredentials(s.cfg.BindDN, password.Reveal(), hash.Reveal())
	if err != nil {
		return err
	}
	err = conn.ntlmBind(cred)
	switch {
	case err == nil:
		return nil
	case ldap3.IsErrorWithCode(err, ldap3.LDAPResultInvalidCredentials):
		return fmt.Errorf("NTLM bind as %q: invalid credentials: check bindDN and the secret in %s", s.cfg.BindDN, firstSet(s.cfg.Password, s.cfg.NTHash))
	}
	return fmt.Errorf("NTLM bind as %q: %w", s.cfg.BindDN, saslOverTLS(conn, err))
}

func firstSet(refs ...secret.Ref) secret.Ref {
	for _, r := range refs {
		if r.IsSet() {
			return r
		}
	}
	return secret.Ref{}
}

// saslOverTLS explains a SASL bind (Kerberos, NTLM) refused over TLS for
// want of signing, which such servers refuse over TLS too.
func saslOverTLS(conn *wireConn, err error) error {
	if conn.isTLS() && ldap3.IsErrorWithCode(err, ldap3.LDAPResultStrongAuthRequired) {
		return fmt.Errorf("%w: over TLS the server takes this bind only unsigned, and refuses that (Samba's default, ldap server require strong auth = yes): bind over ldap:// without startTLS, where the bind signs every message, or allow it on the server (ldap server require strong auth = allow_sasl_over_tls)", err)
	}
	return err
}

// explainTLS adds what to do to a certificate verification error.
func (s *Source) explainTLS(err error) error {
	var host x509.HostnameError
	var authority x509.UnknownAuthorityError
	switch {
	case errors.As(err, &host) && len(host.Certificate.DNSNames) == 0 && len(host.Certificate.IPAddresses) == 0:
		return fmt.Errorf("%w: the server's certificate names it only in its common name (%q), with no subject alternative name, which is not accepted: give the server a certificate with its host name as a subject alternative name", err, host.Certificate.Subject.CommonName)
	case errors.As(err, &host):
		return fmt.Errorf("%w: connect with a name the certificate holds (%s), or set tls.serverName to one", err, strings.Join(certNames(host.Certificate), ", "))
	case errors.As(err, &authority) && s.cfg.TLS.CAFile != "":
		held := caSubjects(s.cfg.TLS.CAFile)
		same := ""
		if slices.Contains(held, issuer(authority.Cert)) {
			same = " (an authority of the same name but another key: an old or another server's copy?)"
		}
		return fmt.Errorf("%w: the server's certificate, issued by %q, is not signed by the authority in tls.caFile (%s, holding %s%s): set tls.caFile to the PEM file of the authority that issued it (FreeIPA: /etc/ipa/ca.crt on any enrolled machine)",
			err, issuer(authority.Cert), s.cfg.TLS.CAFile, quoteAll(held), same)
	case errors.As(err, &authority):
		return fmt.Errorf("%w: the server's certificate, issued by %q, is not signed by an authority this machine trusts: set tls.caFile to the PEM file of the authority that issued it", err, issuer(authority.Cert))
	}
	return err
}

// issuer names the authority that issued c.
func issuer(c *x509.Certificate) string {
	if c == nil {
		return "an unknown authority"
	}
	return c.Issuer.String()
}

// caSubjects lists the subjects of the certificates in a PEM file.
func caSubjects(path string) []string {
	b, _ := os.ReadFile(path)
	var names []string
	for block, rest := pem.Decode(b); block != nil; block, rest = pem.Decode(rest) {
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			names = append(names, c.Subject.String())
		}
	}
	return names
}

// quoteAll quotes names for a message ("no certificate" when none).
func quoteAll(names []string) string {
	if len(names) == 0 {
		return "no certificate"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}

// certNames lists the names a certificate is valid for.
func certNames(c *x509.Certificate) []string {
	names := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}

// tlsConfig is the TLS configuration for one server: verification on
// unless disabled, the configured CA (else the system's), the server name
// from the configuration or the URL.
func (s *Source) tlsConfig(rawURL string) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         s.cfg.TLS.ServerName,
		InsecureSkipVerify: s.cfg.TLS.InsecureSkipVerify, //nolint:gosec // only when the user asks
	}
	if tc.ServerName == "" {
		if u, err := url.Parse(rawURL); err == nil {
			tc.ServerName = u.Hostname()
		}
	}
	if s.cfg.TLS.CAFile == "" {
		return tc, nil
	}
	pem, err := os.ReadFile(s.cfg.TLS.CAFile)
	if err != nil {
		return nil, fmt.Errorf("tls.caFile: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls.caFile: %s holds no PEM certificate", s.cfg.TLS.CAFile)
	}
	tc.RootCAs = pool
	return tc, nil
}
