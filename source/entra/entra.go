// Package entra is the Microsoft Entra ID (Azure AD) source: it reads
// users and their group memberships from Microsoft Graph v1.0 and turns
// them into desired users whose groups are already mapped to target
// groups.
//
// The source signs in with the OAuth 2.0 client credentials grant (a
// client secret, or a certificate whose key signs a client assertion)
// through golang.org/x/oauth2, and calls the few Graph endpoints it needs
// directly (the Microsoft Graph SDK would add tens of megabytes to the
// binary for five GET requests): users with $select, groups by display
// name or id, and each mapped group's transitiveMembers, paging by
// @odata.nextLink and waiting out throttling (429 and 503 with
// Retry-After). Disabled accounts are left out unless
// users.includeDisabled is set, guests unless users.includeGuests is; a
// user without a mailbox gets users.mailFallback (userPrincipalName by
// default) as mail. Any API error fails the whole read; a bad
// user is reported as a source.Problem and skipped.
package entra

import (
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// Source reads one tenant. Make it with Config.Open.
type Source struct {
	*clouddir.Source
	cfg Config
}

// auth loads the credential of the sign-in mode: a client secret, a
// certificate, a federated token file (workload identity) or a managed
// identity.
func (s *Source) auth() (restapi.Auth, error) {
	tokenURL := strings.TrimRight(s.cfg.LoginURL, "/") + "/" + s.cfg.TenantID + "/oauth2/v2.0/token"
	resource := strings.TrimRight(s.cfg.GraphURL, "/")
	scopes := []string{resource + "/.default"}
	switch s.cfg.mode() {
	case AuthClientSecret:
		v, err := s.cfg.ClientSecret.Load()
		if err != nil {
			return nil, fmt.Errorf("clientSecret: %w", err)
		}
		return restapi.ClientSecret{TokenURL: tokenURL, ClientID: s.cfg.ClientID, Secret: v, Scopes: scopes}, nil
	case AuthWorkloadIdentity:
		return restapi.AssertionFile{TokenURL: tokenURL, ClientID: s.cfg.ClientID, Path: s.cfg.FederatedTokenFile, Scopes: scopes}, nil
	case AuthManagedIdentity:
		return newManagedIdentity(s.cfg.IdentityEndpoint, s.cfg.ClientID, resource, s.Retry)
	}
	key, thumb, err := s.certificate()
	if err != nil {
		return nil, err
	}
	return restapi.PrivateKeyJWT{TokenURL: tokenURL, ClientID: s.cfg.ClientID, Key: key, Scopes: scopes,
		Header: map[string]string{"x5t": thumb}}, nil
}

// certificate loads the private key and the certificate's SHA-1
// thumbprint (x5t), which tells Entra ID which certificate signed.
func (s *Source) certificate() (*rsa.PrivateKey, string, error) {
	certPEM, err := s.cfg.Certificate.Load()
	if err != nil {
		return nil, "", fmt.Errorf("certificate: %w", err)
	}
	keyPEM, keyField := certPEM, "certificate"
	if s.cfg.PrivateKey.IsSet() {
		if keyPEM, err = s.cfg.PrivateKey.Load(); err != nil {
			return nil, "", fmt.Errorf("privateKey: %w", err)
		}
		keyField = "privateKey"
	}
	cert := pemBlock(certPEM.Reveal(), "CERTIFICATE")
	if cert == nil {
		return nil, "", errors.New("certificate: no PEM CERTIFICATE block")
	}
	if _, err := x509.ParseCertificate(cert.Bytes); err != nil {
		return nil, "", fmt.Errorf("certificate: %w", err)
	}
	block := pemBlock(keyPEM.Reveal(), "PRIVATE KEY")
	if block == nil {
		return nil, "", fmt.Errorf("%s: no PEM private key block (PRIVATE KEY or RSA PRIVATE KEY)", keyField)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pem.EncodeToMemory(block))
	if err != nil {
		return nil, "", fmt.Errorf("%s: not an RSA private key in PKCS#1 or PKCS#8", keyField)
	}
	sum := sha1.Sum(cert.Bytes)
	return key, base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// pemBlock returns the first PEM block of text whose type ends with
// suffix, nil if none.
func pemBlock(text, suffix string) *pem.Block {
	rest := []byte(text)
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return nil
		}
		if strings.HasSuffix(b.Type, suffix) {
			return b
		}
	}
}
