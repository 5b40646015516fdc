package secret

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// credential is a generic credential of Windows Credential Manager: the
// user name stored with it and its secret (CredentialBlob).
type credential struct {
	user string
	blob []byte
}

// errNoCredential is what a credential reader returns for a target that
// has no generic credential.
var errNoCredential = errors.New("no such credential")

// credentialReader reads the generic credential stored under a target
// name, for the user orgsync runs as.
type credentialReader func(target string) (credential, error)

// loadCredential reads the generic credential r.WinCred with read. With
// r.User set it is the credential of that user as Python's keyring (and
// so the incumbent tool) finds it: the one stored under the target when
// its user is r.User, else the one stored under "USER@TARGET", where
// keyring keeps the second user of a target.
func (r Ref) loadCredential(read credentialReader) (Value, error) {
	c, err := read(r.WinCred)
	if r.User != "" && (errors.Is(err, errNoCredential) || err == nil && !strings.EqualFold(c.user, r.User)) {
		c, err = read(r.User + "@" + r.WinCred)
	}
	switch {
	case errors.Is(err, errNoCredential):
		return "", fmt.Errorf("%s is not in Windows Credential Manager for the account orgsync runs as: store it as that account (cmdkey /generic:%s /user:%s /pass; see the deployment guide)",
			r, r.WinCred, cmpUser(r.User))
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", r, err)
	}
	v := decodeBlob(c.blob)
	if v == "" {
		return "", fmt.Errorf("%s is empty", r)
	}
	return Value(v), nil
}

// cmpUser is the user of a cmdkey example: user, or a placeholder.
func cmpUser(user string) string {
	if user == "" {
		return "USER"
	}
	return user
}

// decodeBlob returns the text of a credential's secret. cmdkey, the
// Credential Manager's dialogs, PowerShell and Python's keyring store it
// as UTF-16 (little-endian); other programs store UTF-8. A UTF-8 secret
// holds no zero byte, a UTF-16 one almost always does (or is no valid
// UTF-8), so a blob of even length with a zero byte, or not UTF-8, is
// UTF-16. A trailing NUL and a trailing newline are dropped.
func decodeBlob(b []byte) string {
	var s string
	if len(b)%2 == 0 && (bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)) {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		s = string(utf16.Decode(u))
	} else if utf8.Valid(b) {
		s = string(b)
	}
	return strings.TrimRight(s, "\x00\r\n")
}
