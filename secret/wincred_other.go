//go:build !windows

package secret

import "errors"

// readCredential says that Credential Manager is Windows'.
func readCredential(string) (credential, error) {
	return credential{}, errors.New("Windows Credential Manager exists on Windows only: on this system use env, file or exec")
}
