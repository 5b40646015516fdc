// Package google is the Google Workspace source: it reads users and
// groups through the Admin SDK Directory API with the read-only directory
// scopes, signed in one of three ways (auth): a service account's JSON
// key file with domain-wide delegation (the JWT bearer grant, acting for
// an administrator); the same delegation without a key, its assertion
// signed by the IAM Credentials API's signJwt with the ambient
// credential (the metadata server of GKE workload identity, Compute
// Engine or Cloud Run, or an external account's configuration: workload
// identity federation from AWS, Azure or any OIDC issuer); or a service
// account that holds an admin role itself, without delegation (it names
// the customer by its ID). The credential kinds are in credential.go,
// signJwt in signjwt.go. It calls users.list (suspended and
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
	"cmp"

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

// auth returns the credential of the sign-in mode: the key file's
// delegation, a delegation signed by IAM Credentials with the ambient
// credential, or the ambient credential of a service account with an
// admin role.
func (s *Source) auth() (restapi.Auth, error) {
	switch s.cfg.mode() {
	case AuthSignJwt:
		cred, err := s.ambient([]string{CloudPlatformScope})
		if err != nil {
			return nil, err
		}
		return &signJWT{cred: cred, Account: s.cfg.ServiceAccount, Subject: s.cfg.Subject, TokenURL: cmp.Or(s.cfg.TokenURL, DefaultTokenURL),
			IAMURL: s.cfg.IAMURL, Scopes: Scopes}, nil
	case AuthAdminRole:
		return s.ambient(Scopes)
	}
	k, err := s.loadFile(typeServiceAccount)
	if err != nil {
		return nil, err
	}
	s.clientID = k.ClientID
	return k.bearer(s.cfg.TokenURL, s.cfg.Subject, Scopes), nil
}
