package secret

import (
	"errors"

	"github.com/danieljoos/wincred"
)

// readCredential reads a generic credential of the user orgsync runs as
// (CredReadW).
func readCredential(target string) (credential, error) {
	c, err := wincred.GetGenericCredential(target)
	if errors.Is(err, wincred.ErrElementNotFound) {
		return credential{}, errNoCredential
	}
	if err != nil {
		return credential{}, err
	}
	return credential{user: c.UserName, blob: c.CredentialBlob}, nil
}
