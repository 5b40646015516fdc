package umapi

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
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
	t.Parallel()
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

// A key encrypted in the legacy OpenSSL PEM form (Proc-Type:
// 4,ENCRYPTED) signs in with its passphrase: the incumbent tool's own
// encrypted test key (DES-EDE3-CBC over PKCS#8, lone CR line endings) is
// its unencrypted twin, and the simulator's key so encrypted signs in;
// without the passphrase or with a wrong one, the error says what to do
// and shows neither the key nor the passphrase.
func TestLegacyEncryptedKey(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	plain, err := parsePrivateKey(read("incumbent-private.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parsePrivateKey(read("incumbent-encrypted.key"), "password")
	if err != nil || !got.Equal(plain) {
		t.Fatalf("the incumbent's encrypted key: %v, same key %v", err, err == nil && got.Equal(plain))
	}
	for _, tc := range []struct{ pass, want string }{
		{"", "set privateKeyPassphrase"},
		{"Tr0ub4dor&3", "cannot decrypt the key with privateKeyPassphrase"},
	} {
		_, err := parsePrivateKey(read("incumbent-encrypted.key"), tc.pass)
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.pass != "" && strings.Contains(err.Error(), tc.pass) {
			t.Errorf("passphrase %q: err = %v, want %q", tc.pass, err, tc.want)
		}
	}
	e := newSimEnv(t, testState(3), umsim.Options{PageSize: 1})
	cfg := e.config(AuthJWT)
	key, err := parsePrivateKey(cfg.PrivateKeyPEM, "")
	if err != nil {
		t.Fatal(err)
	}
	const pass = "correct horse battery staple"
	block, err := x509.EncryptPEMBlock(rand.Reader, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key), []byte(pass), x509.PEMCipherAES256) //nolint:staticcheck // the legacy form under test
	if err != nil {
		t.Fatal(err)
	}
	cfg.PrivateKeyPEM = strings.ReplaceAll(string(pem.EncodeToMemory(block)), "\n", "\r\n")
	cfg.PrivateKeyPassphrase = pass
	if n := countUsers(t, mustClient(t, cfg)); n != 4 {
		t.Fatalf("read %d users, want 4", n)
	}
}
