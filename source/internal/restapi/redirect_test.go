package restapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
	"github.com/orgsync/orgsync/secret"
)

// TestRedirectsCarryNoCredentials: whichever way the client signs in (a
// client secret in the form, a signed client assertion with DPoP proofs,
// a federated token from a file, a JWT bearer grant, an API token), a
// token endpoint or an API that redirects to another host, with any
// redirect status, gets the request refused with both hosts named, not
// retried, and not a byte there. The next-page guard cannot be gone
// around by a redirect either.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	fedFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(fedFile, []byte("federated-subject-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/token" {
			fmt.Fprint(w, `{"access_token":"access-token-value","token_type":"Bearer","expires_in":3600}`)
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer backend.Close()
	secrets := []string{"client-secret-value", "federated-subject-token", "access-token-value", "api-token-value", "eyJ", "DPoP"}
	for _, status := range outboundtest.RedirectStatuses {
		for _, at := range []string{"/token", "/api"} {
			other := outboundtest.NewCatcher(t)
			var sent atomic.Int32
			front := outboundtest.Front(t, backend.URL, other.URL, status, func(r *http.Request) bool { sent.Add(1); return r.URL.Path == at })
			tokenURL := front.URL + "/token"
			auths := map[string]Auth{
				"client secret":             ClientSecret{TokenURL: tokenURL, ClientID: "app", Secret: secret.Value("client-secret-value")},
				"private key JWT with DPoP": PrivateKeyJWT{TokenURL: tokenURL, ClientID: "app", Key: key, DPoP: DPoPAlways},
				"federated token file":      AssertionFile{TokenURL: tokenURL, ClientID: "app", Path: fedFile},
				"JWT bearer":                JWTBearer{TokenURL: tokenURL, Email: "sa@example.com", PrivateKey: secret.Value(keyPEM)},
				"API token":                 StaticToken{Scheme: "SSWS", Token: secret.Value("api-token-value")},
			}
			for name, auth := range auths {
				if _, static := auth.(StaticToken); static && at == "/token" {
					continue
				}
				sent.Store(0)
				c, err := New(context.Background(), Options{BaseURL: front.URL, Auth: auth, MaxRetries: 3})
				if err != nil {
					t.Fatal(err)
				}
				err = c.GetJSON(context.Background(), "/api", nil, &struct{}{})
				refusal := (&outbound.RedirectError{From: front.URL, To: other.URL, Status: status}).Error()
				if err == nil || !strings.Contains(err.Error(), refusal) {
					t.Errorf("%d at %s, %s: %v, want the redirect refused naming both hosts", status, at, name, err)
				}
				if n := sent.Load(); n > 2 {
					t.Errorf("%d at %s, %s: %d requests, want at most 2 (the refusal is not retried)", status, at, name, n)
				}
			}
			other.Check(t, fmt.Sprintf("%d at %s", status, at), secrets...)
		}
	}
}
