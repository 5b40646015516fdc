package ldap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	ldapgssapi "github.com/go-ldap/ldap/v3/gssapi"
	"github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/orgsync/orgsync/secret"
)

// Kerberos configures a Kerberos (SASL GSSAPI) bind: the bind principal's
// keys come from Keytab, a credentials cache (CCache) or the password.
type Kerberos struct {
	Keytab string `yaml:"keytab,omitempty"`
	CCache string `yaml:"ccache,omitempty"`
	// Realm defaults to the realm of bindDN (a user principal name), else
	// the default realm of the krb5.conf.
	Realm string `yaml:"realm,omitempty"`
	// KDC lists the realm's KDCs (host or host:port); default: the
	// krb5.conf's.
	KDC []string `yaml:"kdc,omitempty"`
	// SPN is the server's service principal; default ldap/<the host of the
	// URL or tls.serverName>.
	SPN string `yaml:"spn,omitempty"`
	// Config is a krb5.conf; default $KRB5_CONFIG, else /etc/krb5.conf
	// when it exists.
	Config string `yaml:"config,omitempty"`
	// SSPI binds as the account orgsync runs as (a Windows service's),
	// through Windows' SSPI: Windows finds the realm, the KDCs and the
	// keys, none stored (Windows only; over TLS only).
	SSPI bool `yaml:"sspi,omitempty"`
}

// isSet reports whether any Kerberos setting is given.
func (k Kerberos) isSet() bool {
	return k.Keytab != "" || k.CCache != "" || k.Realm != "" || len(k.KDC) > 0 || k.SPN != "" || k.Config != "" || k.SSPI
}

// validate checks the Kerberos settings of a bind as bindDN (which may
// be empty with a credentials cache or SSPI), name bindDN taken apart;
// overTLS says that every server is reached over TLS.
func (k Kerberos) validate(add addFunc, name bindName, bindDN string, password secret.Ref, overTLS bool) {
	if k.SSPI {
		k.validateSSPI(add, bindDN, password, overTLS)
		return
	}
	sources := 0
	for _, set := range []bool{k.Keytab != "", k.CCache != "", password.IsSet()} {
		sources += boolInt(set)
	}
	if sources != 1 {
		add("kerberos", "a Kerberos bind needs exactly one of kerberos.keytab, kerberos.ccache or password")
	}
	for field, path := range map[string]string{"kerberos.keytab": k.Keytab, "kerberos.ccache": k.CCache, "kerberos.config": k.Config} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			add(field, "cannot read %s: %v", path, errors.Unwrap(err))
		}
	}
	if k.CCache == "" && bindDN == "" {
		add("bindDN", "required for a Kerberos bind with a keytab or password: the principal, e.g. svc-orgsync@CORP.EXAMPLE.COM")
	}
	if name.dn {
		add("bindDN", "a Kerberos bind names a principal, not a DN: write svc-orgsync@CORP.EXAMPLE.COM or CORP\\svc-orgsync")
	}
	if k.SPN != "" && !strings.Contains(k.SPN, "/") {
		add("kerberos.spn", "%q is not a service principal: write ldap/<the server's host name>, e.g. ldap/dc1.corp.example.com", k.SPN)
	}
}

// validateSSPI checks a Kerberos bind through SSPI: the account orgsync
// runs as, so no other identity, keys or Kerberos configuration; and TLS,
// since the SSPI bind negotiates no signing layer.
func (k Kerberos) validateSSPI(add addFunc, bindDN string, password secret.Ref, overTLS bool) {
	if k.Keytab != "" || k.CCache != "" || password.IsSet() || bindDN != "" {
		add("kerberos.sspi", "binds as the account orgsync runs as: remove bindDN, password, kerberos.keytab and kerberos.ccache")
	}
	if k.Realm != "" || len(k.KDC) > 0 || k.Config != "" {
		add("kerberos.sspi", "Windows finds the realm and its KDCs: remove kerberos.realm, kerberos.kdc and kerberos.config")
	}
	if !overTLS {
		add("kerberos.sspi", "binds over TLS only (it negotiates no signing of the messages): use an ldaps:// URL or startTLS: true")
	}
	if k.SPN != "" && !strings.Contains(k.SPN, "/") {
		add("kerberos.spn", "%q is not a service principal: write ldap/<the server's host name>, e.g. ldap/dc1.corp.example.com", k.SPN)
	}
}

// krb5Config returns the krb5.conf to use, with the KDCs of the
// configuration added, and the realm: realm, else the default realm of
// the krb5.conf ("" when neither says).
func (k Kerberos) krb5Config(realm string) (*krbconfig.Config, string, error) {
	path := firstNonEmpty(k.Config, os.Getenv("KRB5_CONFIG"))
	if path == "" {
		if _, err := os.Stat("/etc/krb5.conf"); err == nil {
			path = "/etc/krb5.conf"
		}
	}
	cfg := krbconfig.New()
	if path != "" {
		loaded, err := krbconfig.Load(path)
		if err != nil {
			return nil, "", fmt.Errorf("kerberos: reading %s: %w", path, err)
		}
		cfg = loaded
	}
	realm = firstNonEmpty(realm, cfg.LibDefaults.DefaultRealm)
	if cfg.LibDefaults.DefaultRealm == "" {
		cfg.LibDefaults.DefaultRealm = realm
	}
	if len(k.KDC) > 0 {
		if realm == "" {
			return nil, "", errors.New("kerberos.kdc: set kerberos.realm too (or write bindDN as user@REALM)")
		}
		kdcs := make([]string, len(k.KDC))
		for i, kdc := range k.KDC {
			kdcs[i] = withPort(kdc, "88")
		}
		cfg.Realms = append([]krbconfig.Realm{{Realm: realm, KDC: kdcs}}, cfg.Realms...)
	}
	return cfg, realm, nil
}

func withPort(host, port string) string {
	if strings.Contains(host, ":") {
		return host
	}
	return host + ":" + port
}

// kerberosClient logs in as the bind principal.
func (s *Source) kerberosClient(password secret.Value) (*ldapgssapi.Client, error) {
	k := s.cfg.Kerberos
	name, _ := parseBindName(s.cfg.BindDN)
	cfg, realm, err := k.krb5Config(strings.ToUpper(firstNonEmpty(k.Realm, name.realm)))
	if err != nil {
		return nil, err
	}
	if realm == "" && k.CCache == "" {
		return nil, errors.New("kerberos: no realm: set kerberos.realm, write bindDN as user@REALM, or set default_realm in krb5.conf")
	}
	settings := []func(*client.Settings){client.DisablePAFXFAST(true)}
	principal := name.user + "@" + realm
	var cl *client.Client
	switch {
	case k.Keytab != "":
		kt, err := keytab.Load(k.Keytab)
		if err != nil {
			return nil, fmt.Errorf("kerberos.keytab: reading %s: %w", k.Keytab, err)
		}
		cl = client.NewWithKeytab(name.user, realm, kt, cfg, settings...)
	case k.CCache != "":
		cc, err := credentials.LoadCCache(k.CCache)
		if err != nil {
			return nil, fmt.Errorf("kerberos.ccache: reading %s: %w", k.CCache, err)
		}
		if cl, err = client.NewFromCCache(cc, cfg, settings...); err != nil {
			return nil, kerberosError(err, k.CCache)
		}
		return &ldapgssapi.Client{Client: cl}, nil
	default:
		cl = client.NewWithPassword(name.user, realm, password.Reveal(), cfg, settings...)
	}
	if err := cl.Login(); err != nil {
		return nil, kerberosError(err, principal)
	}
	return &ldapgssapi.Client{Client: cl}, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// spn is the service principal of the server at rawURL.
func (s *Source) spn(rawURL string) string {
	if s.cfg.Kerberos.SPN != "" {
		return s.cfg.Kerberos.SPN
	}
	host := s.cfg.TLS.ServerName
	if host == "" {
		if u, err := url.Parse(rawURL); err == nil {
			host = u.Hostname()
		}
	}
	return "ldap/" + host
}

// kerberosBind runs a SASL GSSAPI bind (RFC 4752) over conn. Over a
// connection without TLS it turns on integrity protection, which Active
// Directory requires of a Kerberos bind by default ("sign or seal"); over
// TLS it asks for no security layer, as Active Directory wants there.
func (c *wireConn) kerberosBind(cl *ldapgssapi.Client, spn string, overTLS bool) error {
	defer cl.Destroy()
	_, sessionKey, err := cl.GetServiceTicket(spn)
	if err != nil {
		return kerberosError(err, spn)
	}
	token, _, err := cl.InitSecContext(spn, nil)
	if err != nil {
		return kerberosError(err, spn)
	}
	reply, done, err := c.saslBind("GSSAPI", token)
	for err == nil && !done && len(reply) > 0 && !isWrapToken(reply) {
		if _, _, err = cl.InitSecContext(spn, reply); err != nil { // the server's AP-REP: mutual authentication
			return kerberosError(err, spn)
		}
		reply, done, err = c.saslBind("GSSAPI", []byte{})
	}
	if err != nil {
		return err
	}
	if done {
		return errors.New("the server ended the Kerberos bind before negotiating a security layer")
	}
	layer := &krbLayer{key: sessionKey, overTLS: overTLS}
	if cl.Subkey.KeyType != 0 {
		layer.key, layer.acceptorSubkey = cl.Subkey, true
	}
	answer, err := layer.negotiate(reply)
	if err != nil {
		return err
	}
	if _, done, err = c.saslBind("GSSAPI", answer); err != nil {
		return err
	} else if !done {
		return errors.New("the server did not complete the Kerberos bind")
	}
	if layer.active {
		c.protect(layer, layer.maxSend)
	}
	return nil
}

// isWrapToken reports whether b is a GSS-API wrap token (RFC 4121).
func isWrapToken(b []byte) bool { return len(b) >= 16 && b[0] == 0x05 && b[1] == 0x04 }

// SASL GSSAPI security layers (RFC 4752 section 3.3).
const (
	layerNone      = 1
	layerIntegrity = 2
	// maxReceive is the largest security-layer buffer this client accepts
	// (the most three bytes can say).
	maxReceive = 1<<24 - 1
)

// krbLayer is the GSSAPI integrity protection of the messages after a
// Kerberos bind: RFC 4121 wrap tokens without confidentiality.
type krbLayer struct {
	key            types.EncryptionKey
	acceptorSubkey bool
	sendSeq        uint64
	maxSend        int
	overTLS        bool // choose no layer: TLS protects the connection
	active         bool // integrity protection was negotiated
}

// negotiate reads the server's offer of security layers and answers with
// integrity protection, or with none over TLS or when the server offers
// only that.
func (l *krbLayer) negotiate(offer []byte) ([]byte, error) {
	payload, err := l.unwrap(offer)
	if err != nil {
		return nil, fmt.Errorf("the server's security layer offer: %w", err)
	}
	if len(payload) != 4 {
		return nil, fmt.Errorf("the server's security layer offer has %d bytes, want 4", len(payload))
	}
	l.maxSend = int(binary.BigEndian.Uint32(payload) & 0xffffff)
	choice := byte(layerIntegrity)
	if l.overTLS && payload[0]&layerNone != 0 {
		choice, l.maxSend = layerNone, 0
	} else if payload[0]&layerIntegrity == 0 {
		if payload[0]&layerNone == 0 {
			return nil, errors.New("the server requires a confidentiality (sealing) layer, which this client does not offer: use ldaps:// or StartTLS with a simple bind")
		}
		choice, l.maxSend = layerNone, 0
	}
	l.active = choice == layerIntegrity
	return l.wrap(binary.BigEndian.AppendUint32(nil, uint32(choice)<<24|maxReceive))
}

// wrap makes a wrap token of payload, checksummed but not encrypted.
func (l *krbLayer) wrap(payload []byte) ([]byte, error) {
	et, err := crypto.GetEtype(l.key.KeyType)
	if err != nil {
		return nil, err
	}
	flags := byte(0)
	if l.acceptorSubkey {
		flags |= 0x04
	}
	wt := &gssapi.WrapToken{Flags: flags, EC: uint16(et.GetHMACBitLength() / 8), SndSeqNum: l.sendSeq, Payload: payload}
	l.sendSeq++
	if err := wt.SetCheckSum(l.key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		return nil, err
	}
	return wt.Marshal()
}

// unwrap checks a wrap token of the server and returns its payload. The
// token's data may be rotated (RRC, RFC 4121 section 4.2.5).
func (l *krbLayer) unwrap(token []byte) ([]byte, error) {
	if !isWrapToken(token) {
		return nil, errors.New("not a GSS-API wrap token")
	}
	if token[2]&0x02 != 0 {
		return nil, errors.New("the server sealed a message though integrity alone was negotiated")
	}
	b := append([]byte(nil), token...)
	if rrc := int(binary.BigEndian.Uint16(b[6:8])); rrc > 0 && len(b) > gssapi.HdrLen {
		data := b[gssapi.HdrLen:]
		rrc %= len(data)
		copy(data, append(append([]byte(nil), data[rrc:]...), data[:rrc]...))
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(b, true); err != nil {
		return nil, err
	}
	if ok, err := wt.Verify(l.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		return nil, fmt.Errorf("a message from the server failed its integrity check: %w", err)
	}
	return wt.Payload, nil
}

// kerberosFixes says what to do about the Kerberos errors a user can fix,
// recognized by their names in gokrb5's messages.
var kerberosFixes = []struct{ marker, fix string }{
	{"KRB_AP_ERR_SKEW", "the clocks of this machine and the domain controller differ by more than the allowed skew (5 minutes): synchronize this machine's clock (NTP)"},
	{"KDC_ERR_C_PRINCIPAL_UNKNOWN", "the KDC does not know the principal %s: check bindDN (the user principal name, e.g. svc-orgsync@CORP.EXAMPLE.COM) and kerberos.realm"},
	{"KDC_ERR_S_PRINCIPAL_UNKNOWN", "the KDC does not know the service principal %s: set kerberos.spn to the directory server's, ldap/<its host name>"},
	{"KDC_ERR_PREAUTH_FAILED", "the KDC refused the key of %s: the password is wrong, or the keytab holds an old key (export it again after a password change)"},
	{"KRB_AP_ERR_BAD_INTEGRITY", "the KDC refused the key of %s: the password is wrong, or the keytab holds an old key (export it again after a password change)"},
	{"KDC_ERR_CLIENT_REVOKED", "the account %s is disabled, locked or expired in the directory"},
	{"KDC_ERR_KEY_EXPIRED", "the password of %s has expired: set a new one (and export the keytab again)"},
	{"KDC_ERR_ETYPE_NOSUPP", "the KDC and this client share no encryption type for %s: enable AES for the account (msDS-SupportedEncryptionTypes) and export the keytab again"},
	{"matching key not found in keytab", "the keytab has no key for %s: export one for this principal (e.g. samba-tool domain exportkeytab or ktpass)"},
	{"no KDCs defined", "no KDC is known for the realm of %s: set kerberos.kdc, or add the realm to krb5.conf"},
	{"failed to communicate with KDC", "no KDC answered for %s: check kerberos.kdc (or krb5.conf) and that port 88 of the KDC is reachable from here"},
	{"error sending to a KDC", "no KDC answered for %s: check kerberos.kdc (or krb5.conf) and that port 88 of the KDC is reachable from here"},
	{"TGT has expired", "the credentials cache holds an expired ticket: renew it (kinit) or use a keytab"},
}

// kerberosError names what to fix for a Kerberos error about principal.
func kerberosError(err error, principal string) error {
	for _, f := range kerberosFixes {
		if strings.Contains(err.Error(), f.marker) {
			fix := f.fix
			if strings.Contains(fix, "%s") {
				fix = fmt.Sprintf(fix, principal)
			}
			return fmt.Errorf("kerberos: %s (%w)", fix, err)
		}
	}
	return fmt.Errorf("kerberos: %w", err)
}
