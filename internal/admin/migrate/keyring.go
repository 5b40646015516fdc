package migrate

import (
	"fmt"
	"runtime"

	"github.com/orgsync/orgsync/secret"
)

// Where the incumbent's keyring entries (its secure_*_key settings) are
// read from (Options.Keyring).
const (
	// KeyringWincred reads each entry from Windows Credential Manager as
	// the incumbent's keyring backend on Windows keeps it: a generic
	// credential whose target is the key, or USER@key when another user's
	// entry holds the key (the wincred secret source does that lookup).
	KeyringWincred = "wincred"
	// KeyringCommand reads each entry with Python's keyring command
	// (keyring get KEY USER), whatever backend the machine has.
	KeyringCommand = "command"
)

// keyringFor resolves Options.Keyring: "" is Credential Manager on
// Windows, where the incumbent's keyring is Credential Manager, and the
// keyring command elsewhere.
func keyringFor(k string) (string, error) {
	switch k {
	case KeyringWincred, KeyringCommand:
		return k, nil
	case "":
		if runtime.GOOS == "windows" {
			return KeyringWincred, nil
		}
		return KeyringCommand, nil
	}
	return "", fmt.Errorf("--keyring %q: use %s (Windows Credential Manager) or %s (Python's keyring command)", k, KeyringWincred, KeyringCommand)
}

// wincredRef is a secret reference to a Windows Credential Manager entry:
// the generic credential the incumbent's keyring reads for key (its
// secure_*_key value) and user, written {wincred: KEY, user: USER}.
type wincredRef struct{ target, user string }

// keyringRef returns the reference to the keyring entry key of user, and
// how the report says where it is read.
func (m *migration) keyringRef(key, user string) (ref any, how string) {
	if m.keyring == KeyringWincred {
		return wincredRef{target: key, user: user}, fmt.Sprintf("read from Windows Credential Manager (the generic credential %q of user %q, or %q, as the incumbent's keyring keeps it) by the account orgsync runs as: the same account as the incumbent's, on the same machine (Credential Manager keeps entries per machine and per user)", key, user, user+"@"+key)
	}
	return keyringCommand(key, user), fmt.Sprintf("read with `keyring get %s %s` (Python's keyring command: pip install keyring) at every run, by the account orgsync runs as, on the machine the incumbent's keyring is on; for a Windows install of the incumbent, migrate on that machine (or with --keyring wincred)", key, user)
}

// keyringCommand is the reference that reads a keyring entry with Python's
// keyring command.
func keyringCommand(key, user string) secret.Ref {
	return secret.Ref{Exec: []string{"keyring", "get", key, user}}
}
