package gate

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"time"
)

// NewTestIntegration returns an integration with random credentials and a
// fresh RSA key pair whose self-signed certificate is valid for ten years,
// plus the private key that signs its JWTs. It is meant for tests of this
// and other packages; it panics if the system's random source fails.
func NewTestIntegration() (Integration, *rsa.PrivateKey) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic("gate: test key: " + err.Error())
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "orgsync test integration"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("gate: test certificate: " + err.Error())
	}
	id := randomHex(16)
	return Integration{
		ClientID:           id,
		ClientSecret:       "s-" + randomHex(16),
		TechnicalAccountID: randomHex(12) + "@techacct.VendorOrg",
		CertificatePEM:     string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
	}, key
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("gate: random: " + err.Error())
	}
	return hex.EncodeToString(b)
}
