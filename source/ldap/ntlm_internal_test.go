package ldap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The NTLMv2 response and session base key of the example in MS-NLMP
// section 4.2.4 (user "User", domain "Domain", password "Password").
func TestNTLMv2KnownAnswer(t *testing.T) {
	t.Parallel()
	cred, err := newNTLMCredentials(`Domain\User`, "Password", "")
	if err != nil {
		t.Fatal(err)
	}
	targetInfo := unhex(t, "02000c0044006f006d00610069006e0001000c0053006500720076006500720000000000")
	resp, baseKey := cred.v2Response(unhex(t, "0123456789abcdef"), targetInfo, make([]byte, 8), unhex(t, "aaaaaaaaaaaaaaaa"))
	if got := hex.EncodeToString(resp[:16]); got != "68cd0ab851e51c96aabc927bebef6a1c" {
		t.Errorf("NTProofStr = %s", got)
	}
	if got := hex.EncodeToString(baseKey); got != "8de40ccadbc14a82f15cb0ad0de95ca3" {
		t.Errorf("session base key = %s", got)
	}
}

// challengeMessage builds a CHALLENGE_MESSAGE with flags and target
// information.
func challengeMessage(flags uint32, targetInfo []byte) []byte {
	b := append([]byte(nil), ntlmSignature...)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = append(b, make([]byte, 8)...) // target name: none
	b = binary.LittleEndian.AppendUint32(b, flags)
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8)
	b = append(b, make([]byte, 8)...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(targetInfo)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(targetInfo)))
	b = binary.LittleEndian.AppendUint32(b, 48)
	return append(b, targetInfo...)
}

// Both ends of a session derive the same keys: what the client seals, a
// server with the client's keys swapped opens, message after message; a
// changed message or a replayed one fails.
func TestNTLMSealing(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{9}, 16)
	client, server := newNTLMLayer(key), newNTLMLayer(key)
	server.signKey, server.verifyKey = server.verifyKey, server.signKey
	server.seal, server.unseal = server.unseal, server.seal
	for _, msg := range []string{"first", "second", ""} {
		tok, _ := client.wrap([]byte(msg))
		if len(msg) > 0 && bytes.Contains(tok, []byte(msg)) {
			t.Errorf("%q is not sealed", msg)
		}
		got, err := server.unwrap(tok)
		if err != nil || string(got) != msg {
			t.Fatalf("%q: %q, %v", msg, got, err)
		}
	}
	tok, _ := server.wrap([]byte("answer"))
	tampered := append([]byte(nil), tok...)
	tampered[len(tampered)-1] ^= 1
	if _, err := client.unwrap(tampered); err == nil {
		t.Error("a changed message passed the signature check")
	}
	if _, err := client.unwrap(tok); err == nil {
		t.Error("a message signed for an earlier sequence number passed")
	}
}

// An AUTHENTICATE_MESSAGE answers a well-formed challenge; a challenge
// that is short, lies about its target information or offers no signing
// is refused.
func TestNTLMAuthenticate(t *testing.T) {
	t.Parallel()
	cred, _ := newNTLMCredentials(`CORP\svc`, "pw", "")
	stamp := []byte{7, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}
	msg, layer, err := cred.authenticate(challengeMessage(ntlmFlags, stamp), ntlmFlags, time.Now())
	if err != nil || layer == nil || !bytes.HasPrefix(msg, append(append([]byte(nil), ntlmSignature...), 3, 0, 0, 0)) {
		t.Fatalf("authenticate: %v", err)
	}
	for name, bad := range map[string][]byte{
		"short":            challengeMessage(ntlmFlags, nil)[:40],
		"target info out":  append(challengeMessage(ntlmFlags, stamp)[:44], 0xff, 0xff, 0, 0),
		"no signing":       challengeMessage(ntlmFlags&^ntlmSign, nil),
		"negotiate, not 2": ntlmNegotiate(ntlmFlags),
	} {
		if _, _, err := cred.authenticate(bad, ntlmFlags, time.Now()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzNTLMChallenge: any server bytes give an answer or an error, never a
// panic.
func FuzzNTLMChallenge(f *testing.F) {
	f.Add(challengeMessage(ntlmFlags, []byte{7, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}))
	f.Add(challengeMessage(ntlmFlags, []byte{2, 0, 0xff, 0xff}))
	cred, _ := newNTLMCredentials(`CORP\svc`, "pw", "")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = cred.authenticate(b, ntlmFlags, time.Now())
	})
}
