package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The simulator serves another client of the service: over HTTPS
// (--tls-cert/--tls-key), it accepts the requests in the shape the
// vendor's Python client sends them: a JWT whose aud and meta-scope start
// with https:// and the IMS host, posted to "/ims/exchange/jwt/" with the
// trailing slash, and booleans written "True".
func TestSimServesAnotherClientOverTLS(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	certFile, keyFile, pool := serverCert(t, t.TempDir())
	_, stderr := startBinary(t, "sim", "--listen", anyPort, "--state", filepath.Join(dir, "sim", "org.yaml"),
		"--tls-cert", certFile, "--tls-key", keyFile, "--read-limit", "0", "--app-limit", "0")
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	addr := listening(t, stderr)
	base := "https://" + addr
	waitFor(t, "the simulator over TLS", 10*time.Second, func() bool {
		resp, err := client.Get(base + "/_sim/state")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	token := exchangeJWT(t, client, dir, addr)
	do := func(method, path, body string) map[string]any {
		req, err := http.NewRequest(method, base+"/v2/usermanagement"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("x-api-key", "orgsync-demo")
		req.Header.Set("Content-type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d, %v", method, path, resp.StatusCode, err)
		}
		return out
	}
	page := do("GET", "/users/1234ABCD@VendorOrg/0?directOnly=True", "")
	if users, _ := page["users"].([]any); page["lastPage"] != true || len(users) == 0 {
		t.Errorf("users page: %v", page)
	}
	res := do("POST", "/action/1234ABCD@VendorOrg?testOnly=True", `[{"user":"alice@example.com","do":[{"add":{"group":["Design"]}}]}]`)
	if res["completedInTestMode"] != float64(1) {
		t.Errorf("test-mode action: %v", res)
	}
}

// exchangeJWT signs a JWT as the vendor's Python client does (aud and
// meta-scope on https://{ims_host}, exp 24 h ahead) with the demo key and
// exchanges it at "/ims/exchange/jwt/".
func exchangeJWT(t *testing.T, client *http.Client, dir, host string) string {
	t.Helper()
	keyPEM, err := os.ReadFile(filepath.Join(dir, "sim", "demo-private-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ims := "https://" + host
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"exp": time.Now().Add(24 * time.Hour).Unix(), "iss": "1234ABCD@VendorOrg", "sub": "demo-tech@techacct.example.com",
		"aud": ims + "/c/orgsync-demo", ims + "/s/ent_user_sdk": true,
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := os.ReadFile(filepath.Join(dir, "sim", "demo-client-secret"))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"client_id": {"orgsync-demo"}, "client_secret": {strings.TrimSpace(string(secret))}, "jwt_token": {signed}}
	resp, err := client.PostForm(ims+"/ims/exchange/jwt/", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
		t.Fatalf("token: %d, %v", resp.StatusCode, err)
	}
	return tr.AccessToken
}

// serverCert writes a self-signed certificate for 127.0.0.1 and its key
// into dir and returns their paths and a pool trusting it.
func serverCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for path, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
