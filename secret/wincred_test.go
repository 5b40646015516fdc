package secret

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16le is s as cmdkey, PowerShell and Python's keyring store it.
func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// vault is a Credential Manager of generic credentials by target.
type vault map[string]credential

func (v vault) read(target string) (credential, error) {
	c, ok := v[target]
	if !ok {
		return credential{}, errNoCredential
	}
	return c, nil
}

func TestWinCredReadsTheCredentialOfTheTargetAndUser(t *testing.T) {
	t.Parallel()
	v := vault{
		"orgsync/ldap":          {user: "svc-orgsync", blob: utf16le("pässword-1")},
		"umapi":                 {user: "org-a", blob: utf16le("first\r\n")},
		"org-b@umapi":           {user: "org-b", blob: utf16le("second")},
		"utf8":                  {blob: []byte("plain-utf8-ü")},
		"empty":                 {user: "x", blob: utf16le("")},
		"utf16-no-zero":         {blob: utf16le("中文")},
		"wrong-user-everywhere": {user: "someone", blob: utf16le("x")},
	}
	for _, c := range []struct {
		ref  Ref
		want string
		err  string
	}{
		{ref: Ref{WinCred: "orgsync/ldap"}, want: "pässword-1"},
		{ref: Ref{WinCred: "orgsync/ldap", User: "SVC-orgsync"}, want: "pässword-1"}, // Windows user names ignore case
		{ref: Ref{WinCred: "umapi", User: "org-a"}, want: "first"},
		{ref: Ref{WinCred: "umapi", User: "org-b"}, want: "second"}, // keyring's second user of a target
		{ref: Ref{WinCred: "utf8"}, want: "plain-utf8-ü"},
		{ref: Ref{WinCred: "utf16-no-zero"}, want: "中文"},
		{ref: Ref{WinCred: "missing"}, err: "Windows credential missing is not in Windows Credential Manager for the account orgsync runs as: store it as that account (cmdkey /generic:missing /user:USER /pass"},
		{ref: Ref{WinCred: "wrong-user-everywhere", User: "svc"}, err: "Windows credential wrong-user-everywhere of user svc is not in Windows Credential Manager"},
		{ref: Ref{WinCred: "empty"}, err: "Windows credential empty is empty"},
	} {
		got, err := c.ref.loadCredential(v.read)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: error %v, want %q", c.ref, err, c.err)
		case c.err == "" && (err != nil || got.Reveal() != c.want):
			t.Errorf("%v: %q, %v; want %q", c.ref, got.Reveal(), err, c.want)
		}
	}
}

// TestWinCredFailuresNameNoSecret: a store that fails says where it
// failed, and never the value.
func TestWinCredFailuresNameNoSecret(t *testing.T) {
	t.Parallel()
	broken := func(string) (credential, error) { return credential{blob: []byte("leak")}, errors.New("access denied") }
	_, err := Ref{WinCred: "t"}.loadCredential(broken)
	if err == nil || err.Error() != "reading Windows credential t: access denied" {
		t.Errorf("error %v", err)
	}
}

func TestWinCredChecks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ref Ref
		err string
	}{
		{Ref{WinCred: "t", User: "u"}, ""},
		{Ref{WinCred: "t", Env: "X"}, "set one of env, file, exec and wincred, not several"},
		{Ref{User: "u", Env: "X"}, "user applies to wincred only"},
		{Ref{WinCred: "t", Timeout: 1}, "timeout applies to exec only"},
		{Ref{}, "wincred (a Windows Credential Manager target)"},
	} {
		err := c.ref.Check()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: Check() = %v, want %q", c.ref, err, c.err)
		}
	}
	if !(Ref{WinCred: "t"}).IsSet() {
		t.Error("a wincred reference is not set")
	}
}

// TestWinCredElsewhereSaysItIsWindows: on another system a wincred
// secret fails with one clear error (the Windows side is tested under
// Wine, cmd/orgsync).
func TestWinCredElsewhereSaysItIsWindows(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the other systems' behaviour")
	}
	_, err := Ref{WinCred: "t"}.Load()
	if err == nil || !strings.Contains(err.Error(), "Windows Credential Manager exists on Windows only") {
		t.Errorf("error %v", err)
	}
}
