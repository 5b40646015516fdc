package umapi

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
)

// oneNewline writes every line ending of a PEM text (CR LF, or a lone CR as
// the incumbent tool's own test key has) as LF, which encoding/pem reads.
func oneNewline(text string) string {
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
}

// decryptLegacyPEM decrypts a key encrypted in the legacy OpenSSL PEM form
// (Proc-Type: 4,ENCRYPTED with DEK-Info, RFC 1423), as the incumbent tool's
// encrypt command writes it (DES-EDE3-CBC over PKCS#8), so that a key
// migrated from it is read as it is. The form does not authenticate the
// ciphertext, which matters to a server that answers decryption attempts,
// not to a key read from a local file; the standard library still reads
// it. Errors never quote the key or the passphrase.
func decryptLegacyPEM(block *pem.Block, passphrase string) (*rsa.PrivateKey, error) {
	if passphrase == "" {
		return nil, errors.New("the key is encrypted (Proc-Type: 4,ENCRYPTED, as the incumbent tool's encrypt command writes it): set privateKeyPassphrase to where its passphrase is (env, file or exec)")
	}
	const wrong = "cannot decrypt the key with privateKeyPassphrase: a wrong passphrase, or a damaged key"
	der, err := x509.DecryptPEMBlock(block, []byte(passphrase)) //nolint:staticcheck // the legacy form is what the incumbent wrote
	if err != nil {
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, errors.New(wrong)
		}
		return nil, errors.New("cannot decrypt the key: its DEK-Info names a cipher or form the legacy PEM encryption does not have")
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errors.New(wrong)
	}
	return rsaKey(k)
}
