package slapdtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLSFiles are PEM files of a test certificate authority and a server
// certificate it signed.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// ServerNames are the names of a server certificate: host names and IP
// addresses as subject alternative names, or none at all (only a common
// name, as Samba's own certificate).
type ServerNames struct {
	CommonName string
	DNSNames   []string
	IPs        []net.IP
}

// LocalNames are the names of a server on loopback.
var LocalNames = ServerNames{CommonName: "localhost", DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}}

// NewTLS generates a CA and a server certificate for 127.0.0.1 and
// localhost in a temporary directory.
func NewTLS(t testing.TB) TLSFiles {
	t.Helper()
	f, err := WriteTLS(t.TempDir(), LocalNames)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// WriteTLS generates a CA and a server certificate for names in dir.
func WriteTLS(dir string, names ServerNames) (TLSFiles, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "orgsync test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names.CommonName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: names.DNSNames, IPAddresses: names.IPs,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caTmpl, &srvKey.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		return TLSFiles{}, err
	}
	f := TLSFiles{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "server.pem"), KeyFile: filepath.Join(dir, "server.key")}
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{{f.CAFile, "CERTIFICATE", caDER}, {f.CertFile, "CERTIFICATE", srvDER}, {f.KeyFile, "PRIVATE KEY", keyDER}} {
		if err := os.WriteFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), 0o600); err != nil {
			return TLSFiles{}, err
		}
	}
	return f, nil
}
