// Package google is the Google Workspace source: it reads users and
// groups through the Admin SDK Directory API as a service account with
// domain-wide delegation (the JWT bearer grant, signed with the key of
// the service account's JSON key file, acting for an administrator, with
// the read-only directory scopes). It calls users.list (suspended and
// archived users left out unless asked for; custom schemas by
// projection=custom and customFieldMask), groups.list and groups.get, and
// members.list (with the members of nested groups by default), asks only
// for the fields it needs, pages by nextPageToken with maxResults, and
// waits out throttling (429, and 403 rateLimitExceeded) and server errors
// as the other cloud sources do (source/internal/restapi,
// source/internal/clouddir). Any API error fails the whole read, with
// what to fix (the scope, the delegation, the subject); a bad user is
// reported as a source.Problem and skipped.
package google

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// Source reads one Google Workspace account. Make it with Config.Open.
type Source struct {
	*clouddir.Source
	cfg Config
	// clientID is the service account's (from its key file), for the
	// advice on domain-wide delegation.
	clientID string
}

// keyFile is what the source reads of a service account's JSON key file.
type keyFile struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	ClientID     string `json:"client_id"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	TokenURI     string `json:"token_uri"`
}

// auth loads the key file.
func (s *Source) auth() (restapi.Auth, error) {
	v, err := s.cfg.Credentials.Load()
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	var k keyFile
	if err := json.Unmarshal([]byte(v.Reveal()), &k); err != nil || k.Type != "service_account" || k.ClientEmail == "" || k.PrivateKey == "" {
		return nil, errors.New(`credentials: not a service account's JSON key file (type "service_account" with client_email and private_key): create a key of type JSON for the service account`)
	}
	if _, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(k.PrivateKey)); err != nil {
		return nil, errors.New("credentials: the key file's private_key is not a PEM RSA private key: download a new JSON key of the service account")
	}
	s.clientID = k.ClientID
	tokenURL := s.cfg.TokenURL
	for _, u := range []string{k.TokenURI, DefaultTokenURL} {
		if tokenURL == "" {
			tokenURL = u
		}
	}
	return restapi.JWTBearer{TokenURL: tokenURL, Email: k.ClientEmail, KeyID: k.PrivateKeyID, PrivateKey: secret.Value(k.PrivateKey),
		Subject: s.cfg.Subject, Scopes: Scopes}, nil
}
