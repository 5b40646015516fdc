package umapi

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/youmark/pkcs8"

	"github.com/orgsync/orgsync/target/umsim"
)

// encryptKey returns the PEM key encrypted as PKCS#8 (PBES2) with pass, as
// `openssl pkcs8 -topk8` writes it.
func encryptKey(t *testing.T, pemText, pass string, opts *pkcs8.Opts) string {
	t.Helper()
	key, err := parsePrivateKey(pemText, "")
	if err != nil {
		t.Fatal(err)
	}
	der, err := pkcs8.MarshalPrivateKey(key, []byte(pass), opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der}))
}

// An encrypted PKCS#8 key with its passphrase signs in (both key
// derivations the library writes); without the passphrase or with a wrong
// one, New says what to do and shows neither the key nor the passphrase.
func TestEncryptedPrivateKey(t *testing.T) {
	e := newSimEnv(t, testState(3), umsim.Options{PageSize: 1})
	const pass = "correct horse battery staple"
	scrypt := &pkcs8.Opts{Cipher: pkcs8.AES256CBC, KDFOpts: pkcs8.ScryptOpts{CostParameter: 1 << 10, BlockSize: 8, ParallelizationParameter: 1, SaltSize: 16}}
	for name, opts := range map[string]*pkcs8.Opts{"PBKDF2 and AES-256-CBC": nil, "scrypt and AES-256-CBC": scrypt} {
		t.Run(name, func(t *testing.T) {
			cfg := e.config(AuthJWT)
			cfg.PrivateKeyPEM = encryptKey(t, cfg.PrivateKeyPEM, pass, opts)
			if !strings.Contains(cfg.PrivateKeyPEM, "BEGIN ENCRYPTED PRIVATE KEY") {
				t.Fatal("the key is not encrypted PKCS#8")
			}
			cfg.PrivateKeyPassphrase = pass
			if n := countUsers(t, mustClient(t, cfg)); n != 4 {
				t.Fatalf("read %d users, want 4", n)
			}
		})
	}
	cfg := e.config(AuthJWT)
	cfg.PrivateKeyPEM = encryptKey(t, cfg.PrivateKeyPEM, pass, nil)
	for _, tc := range []struct{ pass, want string }{
		{"", "the key is encrypted (ENCRYPTED PRIVATE KEY): set privateKeyPassphrase"},
		{"Tr0ub4dor&3", "cannot decrypt the encrypted PKCS#8 key with privateKeyPassphrase"},
	} {
		cfg.PrivateKeyPassphrase = tc.pass
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("passphrase %q: err = %v, want %q", tc.pass, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "PRIVATE KEY-----") || (tc.pass != "" && strings.Contains(err.Error(), tc.pass)) {
			t.Errorf("the error shows a secret: %v", err)
		}
	}
}

// A key encrypted in the legacy OpenSSL PEM format is refused with the
// command that converts it.
func TestLegacyEncryptedKeyIsRefused(t *testing.T) {
	e := newSimEnv(t, testState(1), umsim.Options{})
	key, err := parsePrivateKey(e.config(AuthJWT).PrivateKeyPEM, "")
	if err != nil {
		t.Fatal(err)
	}
	legacy := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY",
		Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00000000000000000000000000000000"},
		Bytes:   x509.MarshalPKCS1PrivateKey(key)})
	_, err = parsePrivateKey(string(legacy), "pass")
	if err == nil || !strings.Contains(err.Error(), "openssl pkcs8 -topk8") {
		t.Fatalf("err = %v, want the conversion named", err)
	}
}
