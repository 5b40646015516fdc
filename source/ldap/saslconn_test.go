package ldap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/types"
)

// testKey is an aes256-cts-hmac-sha1-96 key.
var testKey = types.EncryptionKey{KeyType: 18, KeyValue: bytes.Repeat([]byte{7}, 32)}

// acceptorToken wraps payload as the server does, its data rotated by rrc.
func acceptorToken(t testing.TB, payload []byte, seq uint64, rrc int) []byte {
	t.Helper()
	wt := &gssapi.WrapToken{Flags: 0x01 | 0x04, EC: 12, SndSeqNum: seq, Payload: payload}
	if err := wt.SetCheckSum(testKey, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if rrc > 0 {
		data := b[gssapi.HdrLen:]
		n := len(data) - rrc%len(data)
		rotated := append(append([]byte(nil), data[n:]...), data[:n]...)
		copy(data, rotated)
		binary.BigEndian.PutUint16(b[6:8], uint16(rrc))
	}
	return b
}

// The server's wrap tokens are checked and unwrapped, rotated or not; a
// changed byte or a sealed token is refused.
func TestKerberosLayerUnwrap(t *testing.T) {
	t.Parallel()
	l := &krbLayer{key: testKey, acceptorSubkey: true}
	for _, rrc := range []int{0, 12, 28, 1000} {
		got, err := l.unwrap(acceptorToken(t, []byte("an LDAP message"), 3, rrc))
		if err != nil || string(got) != "an LDAP message" {
			t.Errorf("rrc %d: %q, %v", rrc, got, err)
		}
	}
	tampered := acceptorToken(t, []byte("an LDAP message"), 3, 0)
	tampered[20] ^= 1
	if _, err := l.unwrap(tampered); err == nil || !strings.Contains(err.Error(), "integrity check") {
		t.Errorf("tampered token: %v, want an integrity error", err)
	}
	sealed := acceptorToken(t, []byte("x"), 3, 0)
	sealed[2] |= 0x02
	if _, err := l.unwrap(sealed); err == nil || !strings.Contains(err.Error(), "sealed") {
		t.Errorf("sealed token: %v", err)
	}
}

// Negotiation picks integrity protection without TLS, none over TLS, and
// says what to do when the server wants sealing only.
func TestKerberosLayerNegotiate(t *testing.T) {
	t.Parallel()
	offer := func(layers byte) []byte {
		return acceptorToken(t, []byte{layers, 0, 0x10, 0}, 0, 0)
	}
	for _, tc := range []struct {
		layers  byte
		overTLS bool
		active  bool
		wantErr string
	}{
		{layerNone | layerIntegrity | 4, false, true, ""},
		{layerNone | layerIntegrity | 4, true, false, ""},
		{layerNone, false, false, ""},
		{4, false, false, "confidentiality"},
	} {
		l := &krbLayer{key: testKey, acceptorSubkey: true, overTLS: tc.overTLS}
		answer, err := l.negotiate(offer(tc.layers))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("layers %b: err %v, want %q", tc.layers, err, tc.wantErr)
			}
			continue
		}
		if err != nil || l.active != tc.active || len(answer) < gssapi.HdrLen+4 {
			t.Errorf("layers %b over TLS %v: active %v, %v", tc.layers, tc.overTLS, l.active, err)
		}
		if tc.active && l.maxSend != 0x1000 {
			t.Errorf("maxSend = %d, want the server's 4096", l.maxSend)
		}
	}
}

// byteConn is a connection whose reads come from a buffer and whose writes
// are kept.
type byteConn struct {
	net.Conn
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *byteConn) Read(b []byte) (int, error)  { return c.in.Read(b) }
func (c *byteConn) Write(b []byte) (int, error) { return c.out.Write(b) }

// A protected connection splits writes to the server's buffer size and
// reads messages that span buffers.
func TestSASLConnFraming(t *testing.T) {
	t.Parallel()
	var in []byte
	for _, part := range []string{"first half, ", "second half"} {
		tok := acceptorToken(t, []byte(part), 1, 0)
		in = append(binary.BigEndian.AppendUint32(in, uint32(len(tok))), tok...)
	}
	raw := &byteConn{in: bytes.NewReader(in)}
	c := &saslConn{Conn: raw, layer: &krbLayer{key: testKey, acceptorSubkey: true}, maxSend: 20}
	got := make([]byte, 64)
	n, _ := c.Read(got)
	m, _ := c.Read(got[n:])
	if string(got[:n+m]) != "first half, second half" {
		t.Errorf("read %q", got[:n+m])
	}
	if n, err := c.Write(bytes.Repeat([]byte("x"), 25)); err != nil || n != 25 {
		t.Fatalf("write: %d, %v", n, err)
	}
	frames := 0
	for out := raw.out.Bytes(); len(out) >= 4; frames++ {
		size := binary.BigEndian.Uint32(out)
		out = out[4+size:]
	}
	if frames != 3 { // 25 bytes in buffers of at most 10 (half of 20, for the token's overhead)
		t.Errorf("%d buffers, want 3", frames)
	}
}

// kerberosError names the fix for errors no test server can produce, such
// as a clock skew.
func TestKerberosErrorSaysWhatToFix(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"KRB Error: (37) KRB_AP_ERR_SKEW Clock skew too great":                         "synchronize this machine's clock",
		"KRB Error: (18) KDC_ERR_CLIENT_REVOKED Clients credentials have been revoked": "disabled, locked or expired",
		"KRB Error: (23) KDC_ERR_KEY_EXPIRED Password has expired":                     "has expired",
		"something else entirely": "kerberos: something else",
	} {
		if err := kerberosError(errors.New(msg), "svc@CORP"); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", msg, err, want)
		}
	}
}

// FuzzKerberosLayer feeds arbitrary server bytes to a protected
// connection: it must return data or an error, never panic.
func FuzzKerberosLayer(f *testing.F) {
	tok := acceptorToken(f, []byte("payload"), 1, 5)
	f.Add(append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...))
	f.Add([]byte{0, 0, 0, 16, 5, 4, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &saslConn{Conn: &byteConn{in: bytes.NewReader(data)}, layer: &krbLayer{key: testKey, acceptorSubkey: true}}
		buf := make([]byte, 100)
		for range 10 {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
}
