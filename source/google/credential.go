package google

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google/externalaccount"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// credential is one kind of Google credential that the machine or a
// file gives (a restapi.Auth for the scopes it was made with): the
// metadata server's, an external account's (workload identity
// federation), a service account key's. account names the service
// account whose tokens these are: "" for a federated principal's.
type credential interface {
	restapi.Auth
	account(ctx context.Context, hc *http.Client) (string, error)
}

// keyFile is what the source reads of a credentials file: a service
// account's JSON key or an external account's configuration.
type keyFile struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	ClientID     string `json:"client_id"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	TokenURI     string `json:"token_uri"`
	external
}

// The types of credentials file.
const (
	typeServiceAccount  = "service_account"
	typeExternalAccount = "external_account"
)

// loadFile reads the credentials file and checks that it is one of
// types.
func (s *Source) loadFile(types ...string) (*keyFile, error) {
	v, err := s.cfg.Credentials.Load()
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	var k keyFile
	if err := json.Unmarshal([]byte(v.Reveal()), &k); err != nil {
		return nil, errors.New("credentials: not a JSON credentials file (a service account's key or an external account's configuration)")
	}
	switch {
	case k.Type == typeServiceAccount && slices.Contains(types, typeServiceAccount):
		if k.ClientEmail == "" || k.PrivateKey == "" {
			return nil, errors.New(`credentials: the key file has no client_email or private_key: create a key of type JSON for the service account`)
		}
		if _, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(k.PrivateKey)); err != nil {
			return nil, errors.New("credentials: the key file's private_key is not a PEM RSA private key: download a new JSON key of the service account")
		}
		return &k, nil
	case k.Type == typeExternalAccount && slices.Contains(types, typeExternalAccount):
		return &k, k.external.check()
	}
	return nil, fmt.Errorf("credentials: a file of type %q, but auth: %s reads %s", k.Type, s.cfg.mode(), fileKinds[s.cfg.mode()])
}

// fileKinds say which credentials file each mode reads.
var fileKinds = map[string]string{
	AuthKeyFile:   `a service account's JSON key (type "service_account")`,
	AuthSignJwt:   `an external account's configuration (type "external_account", from gcloud iam workload-identity-pools create-cred-config), or none for the metadata server`,
	AuthAdminRole: `an external account's configuration (type "external_account") or a service account's JSON key, or none for the metadata server`,
}

// bearer is the JWT bearer grant signed by the key file's key, for
// subject ("": the service account itself). The assertion's audience is
// Google's token URI wherever it is sent.
func (k *keyFile) bearer(tokenURL, subject string, scopes []string) restapi.JWTBearer {
	return restapi.JWTBearer{TokenURL: cmp.Or(tokenURL, k.TokenURI, DefaultTokenURL), Audience: DefaultTokenURL, Email: k.ClientEmail,
		KeyID: k.PrivateKeyID, PrivateKey: secret.Value(k.PrivateKey), Subject: subject, Scopes: scopes}
}

// keyCredential is a service account key's own tokens (credential).
type keyCredential struct{ restapi.JWTBearer }

func (k keyCredential) account(context.Context, *http.Client) (string, error) { return k.Email, nil }

// ambient returns the credential the mode signs in with, for scopes: the
// credentials file's (an external account's, or for adminRole a service
// account key's), else the metadata server's.
func (s *Source) ambient(scopes []string) (credential, error) {
	if !s.cfg.Credentials.IsSet() {
		return &metadataCredential{base: s.cfg.MetadataURL, scopes: scopes}, nil
	}
	types := []string{typeExternalAccount}
	if s.cfg.mode() == AuthAdminRole {
		types = append(types, typeServiceAccount)
	}
	k, err := s.loadFile(types...)
	if err != nil {
		return nil, err
	}
	if k.Type == typeServiceAccount {
		return keyCredential{k.bearer(s.cfg.TokenURL, "", scopes)}, nil
	}
	if s.cfg.mode() == AuthAdminRole && k.ServiceAccountImpersonationURL == "" {
		return nil, errors.New("credentials: auth: adminRole needs the external account to impersonate the service account that holds the admin role " +
			"(service_account_impersonation_url: create the configuration with --service-account): an admin role cannot be assigned to a federated principal")
	}
	return &externalCredential{file: k.external, scopes: scopes}, nil
}

// metadataCredential is the metadata server's service account
// (credential): GKE workload identity, Compute Engine, Cloud Run.
type metadataCredential struct {
	base   string // the metadata server's root, "" for the default
	scopes []string
}

// DefaultMetadataURL is the metadata server's root; GCE_METADATA_HOST
// names another host, as Google's client libraries read it.
const DefaultMetadataURL = "http://metadata.google.internal"

func (m *metadataCredential) root() string {
	if m.base != "" {
		return strings.TrimRight(m.base, "/")
	}
	if h := os.Getenv("GCE_METADATA_HOST"); h != "" {
		return "http://" + h
	}
	return DefaultMetadataURL
}

const metadataAccount = "/computeMetadata/v1/instance/service-accounts/default/"

func (m *metadataCredential) Where() string { return "the metadata server " + m.root() }

// MetadataEndpoints is the metadata server (restapi.MetadataEndpoints).
func (m *metadataCredential) MetadataEndpoints() []string { return []string{m.root()} }

// metadataOf returns the metadata endpoints of c, none when it reaches
// none.
func metadataOf(c credential) []string {
	if m, ok := c.(restapi.MetadataEndpoints); ok {
		return m.MetadataEndpoints()
	}
	return nil
}

func (m *metadataCredential) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	return oauth2.ReuseTokenSource(nil, tokenFunc(func() (*oauth2.Token, error) {
		q := url.Values{"scopes": {strings.Join(m.scopes, ",")}}
		body, err := m.get(ctx, hc, "token?"+q.Encode())
		if err != nil {
			return nil, err
		}
		return tokenOf(body)
	}))
}

func (m *metadataCredential) account(ctx context.Context, hc *http.Client) (string, error) {
	b, err := m.get(ctx, hc, "email")
	return strings.TrimSpace(string(b)), err
}

// get asks the metadata server for an item of the default service
// account, with the header it requires.
func (m *metadataCredential) get(ctx context.Context, hc *http.Client, item string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.root()+metadataAccount+item, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Metadata-Flavor", "Google")
	return send(hc, req)
}

// send sends req and returns the answer's body; an answer other than 200
// is an *oauth2.RetrieveError with its code and description when it has
// them.
func send(hc *http.Client, req *http.Request) ([]byte, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		re := &oauth2.RetrieveError{Response: resp, Body: body}
		var e struct {
			Code string `json:"error"`
			Desc string `json:"error_description"`
		}
		if json.Unmarshal(body, &e) == nil {
			re.ErrorCode, re.ErrorDescription = e.Code, e.Desc
		}
		return nil, re
	}
	return body, nil
}

// tokenOf reads a token answer: access_token, expires_in.
func tokenOf(body []byte) (*oauth2.Token, error) {
	var t struct {
		AccessToken string      `json:"access_token"`
		ExpiresIn   json.Number `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" {
		return nil, errors.New("the token answer has no access_token")
	}
	secs, _ := strconv.Atoi(t.ExpiresIn.String())
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: "Bearer", Expiry: time.Now().Add(time.Duration(max(secs, 60)) * time.Second)}, nil
}

// tokenFunc is a function as an oauth2.TokenSource.
type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// external is an external account's configuration (workload identity
// federation from AWS, Azure or any OIDC or SAML issuer), as gcloud iam
// workload-identity-pools create-cred-config writes it.
type external struct {
	Audience                       string                            `json:"audience"`
	SubjectTokenType               string                            `json:"subject_token_type"`
	TokenURL                       string                            `json:"token_url"`
	ServiceAccountImpersonationURL string                            `json:"service_account_impersonation_url"`
	CredentialSource               *externalaccount.CredentialSource `json:"credential_source"`
	WorkforcePoolUserProject       string                            `json:"workforce_pool_user_project"`
	UniverseDomain                 string                            `json:"universe_domain"`
	QuotaProjectID                 string                            `json:"quota_project_id"`
	Impersonation                  struct {
		Lifetime int `json:"token_lifetime_seconds"`
	} `json:"service_account_impersonation"`
}

// check reports what the configuration lacks.
func (e *external) check() error {
	switch {
	case e.Audience == "" || e.SubjectTokenType == "":
		return errors.New("credentials: the external account configuration has no audience or subject_token_type: create it with gcloud iam workload-identity-pools create-cred-config")
	case e.CredentialSource == nil:
		return errors.New("credentials: the external account configuration has no credential_source (the file, URL, executable or AWS environment that gives the subject token)")
	}
	return nil
}

// externalCredential is an external account's tokens (credential):
// the subject token exchanged at the Security Token Service, then the
// service account impersonated when the configuration names one.
type externalCredential struct {
	file   external
	scopes []string
}

// MetadataEndpoints are AWS's metadata addresses that an AWS-sourced
// external account reads (restapi.MetadataEndpoints).
func (x *externalCredential) MetadataEndpoints() []string {
	cs := x.file.CredentialSource
	if cs == nil || !strings.HasPrefix(cs.EnvironmentID, "aws") {
		return nil
	}
	var urls []string
	for _, u := range []string{cs.URL, cs.RegionURL, cs.IMDSv2SessionTokenURL} {
		if u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

func (x *externalCredential) Where() string {
	return "the Security Token Service " + cmp.Or(x.file.TokenURL, "https://sts.googleapis.com/v1/token")
}

func (x *externalCredential) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	f := x.file
	ts, err := externalaccount.NewTokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc), externalaccount.Config{
		Audience: f.Audience, SubjectTokenType: f.SubjectTokenType, TokenURL: f.TokenURL,
		ServiceAccountImpersonationURL: f.ServiceAccountImpersonationURL, ServiceAccountImpersonationLifetimeSeconds: f.Impersonation.Lifetime,
		CredentialSource: f.CredentialSource, QuotaProjectID: f.QuotaProjectID, Scopes: x.scopes,
		WorkforcePoolUserProject: f.WorkforcePoolUserProject, UniverseDomain: f.UniverseDomain,
	})
	if err != nil {
		return tokenFunc(func() (*oauth2.Token, error) { return nil, fmt.Errorf("credentials: %w", err) })
	}
	return ts
}

// impersonated reads the service account of an impersonation URL
// (".../serviceAccounts/<email>:generateAccessToken").
var impersonated = regexp.MustCompile(`/serviceAccounts/([^/:]+):generateAccessToken$`)

func (x *externalCredential) account(context.Context, *http.Client) (string, error) {
	if m := impersonated.FindStringSubmatch(x.file.ServiceAccountImpersonationURL); m != nil {
		return url.PathUnescape(m[1])
	}
	return "", nil
}
