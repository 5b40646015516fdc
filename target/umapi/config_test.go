package umapi

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
)

func TestConfigValidation(t *testing.T) {
	_, err := New(Config{BaseURL: "ftp://x", AuthMethod: AuthJWT, ReadLimit: -1, RetryWaitMin: 10, RetryWaitMax: 5})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"baseURL: \"ftp://x\" is not", "authBaseURL: required", "orgID: required",
		"clientID: required", "clientSecret: required", "techAccountID: required", "privateKey: required",
		"readLimit: must be positive", "retryWaitMax:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// No printed form of a Config, nor New's errors, shows a secret.
func TestConfigRedactsSecrets(t *testing.T) {
	cfg := Config{BaseURL: "https://a", AuthBaseURL: "https://b", OrgID: "1@VendorOrg", ClientID: "id",
		ClientSecret: "TOPSECRET", PrivateKeyPEM: "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEY\n-----END PRIVATE KEY-----",
		TechAccountID: "tech"}
	_, err := New(cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(err)} {
		if strings.Contains(s, "TOPSECRET") {
			t.Errorf("secret printed: %s", s)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "privateKey:") {
		t.Errorf("err = %v, want a privateKey error", err)
	}
}

func TestParsePrivateKey(t *testing.T) {
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
	cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x01}}))
	_, err := parsePrivateKey(cert, "")
	if err == nil || !strings.Contains(err.Error(), "a certificate") || !strings.Contains(err.Error(), "the private key that goes with it") {
		t.Errorf("err = %v, want it to say this is a certificate and to give the private key", err)
	}
}
