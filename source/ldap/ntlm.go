package ldap

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"golang.org/x/crypto/md4" //nolint:staticcheck // NTLM's NT hash is MD4 by definition
)

// NTLMSSP negotiate flags (MS-NLMP 2.2.2.5) this client asks for: NTLMv2
// with extended session security, 128-bit keys, a new session key (key
// exchange), and signing and sealing of the messages after the bind:
// Active Directory's LDAP seals whenever signing is negotiated.
const (
	ntlmUnicode          = 0x00000001
	ntlmRequestTarget    = 0x00000004
	ntlmSign             = 0x00000010
	ntlmSeal             = 0x00000020
	ntlmNTLM             = 0x00000200
	ntlmAlwaysSign       = 0x00008000
	ntlmExtendedSecurity = 0x00080000
	ntlmTargetInfo       = 0x00800000
	ntlm128              = 0x20000000
	ntlmKeyExchange      = 0x40000000
	ntlmFlags            = ntlmUnicode | ntlmRequestTarget | ntlmSign | ntlmNTLM | ntlmAlwaysSign |
		ntlmExtendedSecurity | ntlmTargetInfo | ntlm128 | ntlmKeyExchange
	ntlmSignatureSize = 16
	avTimestamp       = 7 // MsvAvTimestamp in the challenge's target information
)

var ntlmSignature = []byte("NTLMSSP\x00")

// ntlmCredentials are the account of an NTLM bind: the user, its domain
// ("" for a user principal name) and the NT hash of its password.
type ntlmCredentials struct {
	user, domain string
	ntHash       []byte
}

// newNTLMCredentials takes bindDN apart (DOMAIN\user, or a user principal
// name as the user) and hashes password, or decodes hash (32 hex digits).
func newNTLMCredentials(bindDN, password, hash string) (ntlmCredentials, error) {
	name, err := parseBindName(bindDN)
	if err != nil || name.dn {
		return ntlmCredentials{}, errors.New(`an NTLM bind names DOMAIN\user or a user principal name`)
	}
	c := ntlmCredentials{user: name.user, domain: name.domain}
	if name.realm != "" {
		c.user = bindDN // the user principal name, with no domain
	}
	if hash != "" {
		if c.ntHash, err = hex.DecodeString(hash); err != nil || len(c.ntHash) != 16 {
			return ntlmCredentials{}, errors.New("ntHash: not an NT hash (32 hexadecimal digits)")
		}
		return c, nil
	}
	h := md4.New()
	_, _ = h.Write(utf16LE(password))
	c.ntHash = h.Sum(nil)
	return c, nil
}

// ntlmBind runs an NTLM bind (SASL mechanism NTLM, NTLMSSP messages).
// Without TLS it negotiates signing and sealing of the messages after the
// bind, which Active Directory requires; over TLS, which such servers want
// unsigned, it asks for neither.
func (c *wireConn) ntlmBind(cred ntlmCredentials) error {
	flags := uint32(ntlmFlags)
	if c.isTLS() {
		flags &^= ntlmSign | ntlmSeal | ntlmAlwaysSign
	}
	challenge, done, err := c.saslBind("NTLM", ntlmNegotiate(flags))
	if err != nil {
		return err
	}
	if done {
		return errors.New("the server ended the NTLM bind after its first message")
	}
	auth, layer, err := cred.authenticate(challenge, flags, time.Now())
	if err != nil {
		return fmt.Errorf("the server's NTLM challenge: %w", err)
	}
	if _, done, err = c.saslBind("NTLM", auth); err != nil {
		return err
	} else if !done {
		return errors.New("the server did not complete the NTLM bind")
	}
	if flags&ntlmSign != 0 {
		c.protect(layer, 0)
	}
	return nil
}

// ntlmNegotiate is the NEGOTIATE_MESSAGE, without domain or workstation.
func ntlmNegotiate(flags uint32) []byte {
	b := append([]byte(nil), ntlmSignature...)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, flags)
	return append(b, make([]byte, 16)...) // empty domain and workstation fields
}

// ntlmChallenge is what the client needs of a CHALLENGE_MESSAGE.
type ntlmChallenge struct {
	flags      uint32
	challenge  []byte
	targetInfo []byte
}

// parseNTLMChallenge reads a CHALLENGE_MESSAGE (MS-NLMP 2.2.1.2) answering
// a negotiation of flags.
func parseNTLMChallenge(b []byte, flags uint32) (ntlmChallenge, error) {
	if len(b) < 48 || !bytes.Equal(b[:8], ntlmSignature) || binary.LittleEndian.Uint32(b[8:12]) != 2 {
		return ntlmChallenge{}, errors.New("not an NTLM challenge message")
	}
	ch := ntlmChallenge{flags: binary.LittleEndian.Uint32(b[20:24]), challenge: b[24:32]}
	length, offset := int(binary.LittleEndian.Uint16(b[40:42])), int(binary.LittleEndian.Uint32(b[44:48]))
	if offset > len(b) || length > len(b)-offset {
		return ntlmChallenge{}, errors.New("the NTLM challenge's target information lies outside it")
	}
	ch.targetInfo = b[offset : offset+length]
	if ch.flags&ntlmExtendedSecurity == 0 || ch.flags&ntlmKeyExchange == 0 || (flags&ntlmSign != 0 && ch.flags&ntlmSign == 0) {
		return ntlmChallenge{}, errors.New("the server does not offer NTLMv2 signing with extended session security and key exchange")
	}
	return ch, nil
}

// timestamp returns the MsvAvTimestamp of the target information, if any.
func (ch ntlmChallenge) timestamp() ([]byte, bool) {
	for info := ch.targetInfo; len(info) >= 4; {
		id, n := binary.LittleEndian.Uint16(info[:2]), int(binary.LittleEndian.Uint16(info[2:4]))
		if n > len(info)-4 || id == 0 {
			return nil, false
		}
		if id == avTimestamp && n == 8 {
			return info[4:12], true
		}
		info = info[4+n:]
	}
	return nil, false
}

// authenticate answers challenge with an AUTHENTICATE_MESSAGE (NTLMv2) and
// returns the signing layer of the session it sets up.
func (cred ntlmCredentials) authenticate(raw []byte, flags uint32, now time.Time) ([]byte, *ntlmLayer, error) {
	ch, err := parseNTLMChallenge(raw, flags)
	if err != nil {
		return nil, nil, err
	}
	stamp, ok := ch.timestamp()
	if !ok {
		stamp = binary.LittleEndian.AppendUint64(nil, uint64(now.UnixNano()/100+116444736000000000))
	}
	clientChallenge, sessionKey := make([]byte, 8), make([]byte, 16)
	if _, err := rand.Read(clientChallenge); err != nil {
		return nil, nil, err
	}
	if _, err := rand.Read(sessionKey); err != nil {
		return nil, nil, err
	}
	ntResponse, baseKey := cred.v2Response(ch.challenge, ch.targetInfo, stamp, clientChallenge)
	encryptedKey := make([]byte, 16)
	rc4Cipher(baseKey).XORKeyStream(encryptedKey, sessionKey)
	fields := [][]byte{make([]byte, 24), ntResponse, utf16LE(cred.domain), utf16LE(cred.user), nil, encryptedKey}
	msg := append([]byte(nil), ntlmSignature...)
	msg = binary.LittleEndian.AppendUint32(msg, 3)
	offset := 64
	for _, f := range fields {
		msg = binary.LittleEndian.AppendUint16(msg, uint16(len(f)))
		msg = binary.LittleEndian.AppendUint16(msg, uint16(len(f)))
		msg = binary.LittleEndian.AppendUint32(msg, uint32(offset))
		offset += len(f)
	}
	msg = binary.LittleEndian.AppendUint32(msg, flags&ch.flags)
	msg = append(msg, bytes.Join(fields, nil)...)
	return msg, newNTLMLayer(sessionKey), nil
}

// v2Response is the NTLMv2 response to serverChallenge (MS-NLMP 3.3.2)
// and the session base key it sets up.
func (cred ntlmCredentials) v2Response(serverChallenge, targetInfo, stamp, clientChallenge []byte) (response, baseKey []byte) {
	responseKey := hmacMD5(cred.ntHash, utf16LE(strings.ToUpper(cred.user)+cred.domain))
	temp := bytes.Join([][]byte{{1, 1, 0, 0, 0, 0, 0, 0}, stamp, clientChallenge, make([]byte, 4), targetInfo, make([]byte, 4)}, nil)
	proof := hmacMD5(responseKey, append(append([]byte(nil), serverChallenge...), temp...))
	return append(proof, temp...), hmacMD5(responseKey, proof)
}

// ntlmLayer seals and signs the messages of an NTLM session (MS-NLMP
// 3.4.3, with extended session security and key exchange) and opens and
// checks the server's.
type ntlmLayer struct {
	signKey, verifyKey []byte
	seal, unseal       *rc4.Cipher
	sendSeq, recvSeq   uint32
}

func newNTLMLayer(sessionKey []byte) *ntlmLayer {
	key := func(magic string) []byte {
		sum := md5.Sum(append(append([]byte(nil), sessionKey...), magic+"\x00"...))
		return sum[:]
	}
	return &ntlmLayer{
		signKey:   key("session key to client-to-server signing key magic constant"),
		verifyKey: key("session key to server-to-client signing key magic constant"),
		seal:      rc4Cipher(key("session key to client-to-server sealing key magic constant")),
		unseal:    rc4Cipher(key("session key to server-to-client sealing key magic constant")),
	}
}

// seal encrypts msg in place with handle and returns its 16-byte NTLMSSP
// signature (MS-NLMP 3.4.3: the checksum of the plain message, encrypted
// with the same handle after the message).
func seal(key []byte, handle *rc4.Cipher, seq uint32, msg []byte) []byte {
	seqBytes := binary.LittleEndian.AppendUint32(nil, seq)
	checksum := hmacMD5(key, append(seqBytes, msg...))[:8]
	handle.XORKeyStream(msg, msg)
	handle.XORKeyStream(checksum, checksum)
	return bytes.Join([][]byte{{1, 0, 0, 0}, checksum, seqBytes}, nil)
}

func (l *ntlmLayer) wrap(payload []byte) ([]byte, error) {
	sealed := append([]byte(nil), payload...)
	sig := seal(l.signKey, l.seal, l.sendSeq, sealed)
	l.sendSeq++
	return append(sig, sealed...), nil
}

func (l *ntlmLayer) unwrap(token []byte) ([]byte, error) {
	if len(token) < ntlmSignatureSize {
		return nil, errors.New("an NTLM-sealed message shorter than its signature")
	}
	payload := append([]byte(nil), token[ntlmSignatureSize:]...)
	l.unseal.XORKeyStream(payload, payload)
	seqBytes := binary.LittleEndian.AppendUint32(nil, l.recvSeq)
	checksum := hmacMD5(l.verifyKey, append(seqBytes, payload...))[:8]
	l.unseal.XORKeyStream(checksum, checksum)
	l.recvSeq++
	want := bytes.Join([][]byte{{1, 0, 0, 0}, checksum, seqBytes}, nil)
	if !hmac.Equal(want, token[:ntlmSignatureSize]) {
		return nil, errors.New("a message from the server failed its NTLM signature check")
	}
	return payload, nil
}

func hmacMD5(key, data []byte) []byte {
	h := hmac.New(md5.New, key)
	_, _ = h.Write(data)
	return h.Sum(nil)
}

func rc4Cipher(key []byte) *rc4.Cipher {
	c, _ := rc4.NewCipher(key) // only a key of 1 to 256 bytes fails; these are 16
	return c
}

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}
