package umapi

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Check and New name each problem of the secrets and files by its field
// of Config; a secret left empty is the caller's to report, but New
// refuses AuthJWT without a private key.
func TestCheckNamesTheFields(t *testing.T) {
	t.Parallel()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("no certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{AuthMethod: AuthJWT, PrivateKeyPEM: "not a key", CAFile: ca}
	var ce *ConfigError
	if err := cfg.Check(); !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("Check = %v, want the key's and the CA bundle's problems", err)
	}
	for _, p := range ce.Problems {
		if _, ok := reflect.TypeFor[Config]().FieldByName(p.Field); !ok {
			t.Errorf("problem %q names no field of Config", p)
		}
	}
	if ce.Problems[0].Field != "PrivateKeyPEM" || ce.Problems[1].Field != "CAFile" {
		t.Errorf("problems %v, want PrivateKeyPEM then CAFile", ce)
	}
	if err := (Config{AuthMethod: AuthJWT}).Check(); err != nil {
		t.Errorf("Check of a configuration without a key = %v, want nothing (the caller says why)", err)
	}
	if _, err := New(Config{}); !errors.As(err, &ce) || ce.Problems[0].Field != "PrivateKeyPEM" {
		t.Errorf("New without a key (AuthJWT by default) = %v, want it refused", err)
	}
}

// No printed form of a Config, nor New's errors, shows a secret.
func TestConfigRedactsSecrets(t *testing.T) {
	t.Parallel()
	cfg := Config{BaseURL: "https://a", AuthBaseURL: "https://b", OrgID: "1@VendorOrg", ClientID: "id",
		ClientSecret: "TOPSECRET", PrivateKeyPEM: "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEY\n-----END PRIVATE KEY-----",
		TechAccountID: "tech"}
	_, err := New(cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(err)} {
		if strings.Contains(s, "TOPSECRET") {
			t.Errorf("secret printed: %s", s)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "PrivateKeyPEM:") {
		t.Errorf("err = %v, want a privateKey error", err)
	}
}

func TestParsePrivateKey(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"PKCS#1": {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)},
		"PKCS#8": {Type: "PRIVATE KEY", Bytes: pkcs8},
	} {
		got, err := parsePrivateKey(string(pem.EncodeToMemory(block)), "")
		if err != nil || !got.Equal(key) {
			t.Errorf("%s: err = %v, key equal = %v", name, err, err == nil && got.Equal(key))
		}
	}
	if _, err := parsePrivateKey("not a key", ""); err == nil {
		t.Error("want an error for non-PEM input")
	}
}

// The integration's certificate given where its private key belongs (the
// two files come as a pair) is named as such, with what to give instead.
func TestParsePrivateKeyGivenACertificate(t *testing.T) {
	t.Parallel()
	cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x01}}))
	_, err := parsePrivateKey(cert, "")
	if err == nil || !strings.Contains(err.Error(), "a certificate") || !strings.Contains(err.Error(), "the private key that goes with it") {
		t.Errorf("err = %v, want it to say this is a certificate and to give the private key", err)
	}
}
