// Package okta is the Okta source: it reads users and their group
// memberships from the Okta Management API and turns them into desired
// users whose groups are already mapped to target groups.
//
// The source signs in with an API token ("Authorization: SSWS ...") or as
// an API service app with OAuth 2.0 client credentials and a private-key
// JWT (golang.org/x/oauth2), with DPoP proofs (RFC 9449) when the app
// requires them (the dpop key), and calls the few endpoints it needs directly
// rather than through the Okta SDK: users by status (ACTIVE by default)
// with their profile attributes, groups by name or id, each mapped group's
// members, paging by the Link header's rel="next" and waiting as the
// X-Rate-Limit-Remaining and X-Rate-Limit-Reset headers and 429 answers
// say. Any API error fails the whole read; a bad user is reported as a
// source.Problem and skipped.
package okta

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// Source reads one Okta organization. Make it with Config.Open.
type Source struct {
	*clouddir.Source
	cfg Config
	// SearchSettle is the wait before a search by name that found no
	// group is sent once more (DefaultSearchSettle; tests shorten it).
	SearchSettle time.Duration
}

// dpopModes are the restapi modes of the values of dpop.
var dpopModes = map[string]restapi.DPoPMode{"auto": restapi.DPoPAuto, "always": restapi.DPoPAlways, "never": restapi.DPoPNever}

// auth loads the API token or the private key.
func (s *Source) auth() (restapi.Auth, error) {
	if s.cfg.APIToken.IsSet() {
		v, err := s.cfg.APIToken.Load()
		if err != nil {
			return nil, fmt.Errorf("apiToken: %w", err)
		}
		return restapi.StaticToken{Scheme: "SSWS", Token: v}, nil
	}
	pemText, err := s.cfg.PrivateKey.Load()
	if err != nil {
		return nil, fmt.Errorf("privateKey: %w", err)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(pemText.Reveal()))
	if err != nil {
		return nil, errors.New("privateKey: not a PEM RSA private key (PKCS#1 or PKCS#8)")
	}
	p := restapi.PrivateKeyJWT{TokenURL: s.cfg.OrgURL + "/oauth2/v1/token", ClientID: s.cfg.ClientID, Key: key, Scopes: s.cfg.Scopes,
		DPoP: dpopModes[s.cfg.DPoP]}
	if s.cfg.KeyID != "" {
		p.Header = map[string]string{"kid": s.cfg.KeyID}
	}
	return p, nil
}
