package entra

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
	"strconv"
	"time"

	"golang.org/x/oauth2"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// managedIdentity gets Microsoft Graph tokens from the managed identity
// endpoint of the machine or the app (restapi.Auth), as Microsoft
// documents it: the instance metadata service (GET with "Metadata: true",
// API version 2018-02-01) on virtual machines, scale sets and AKS nodes;
// App Service's and Container Apps' endpoint (IDENTITY_ENDPOINT, with the
// X-IDENTITY-HEADER it checks, API version 2019-08-01). No secret is kept.
// The instance metadata service answers 404 and 410 while it updates
// (after a 410 it is back within 70 seconds): those are retried.
type managedIdentity struct {
	endpoint string
	// header is App Service's IDENTITY_HEADER: the endpoint speaks App
	// Service's protocol when it is set, the instance metadata service's
	// otherwise.
	header   secret.Value
	clientID string // of a user-assigned identity; "": the system-assigned one
	resource string
	// retries of a 404 or 410 of the instance metadata service, the
	// waits between them doubling from minWait to maxWait.
	retries          int
	minWait, maxWait time.Duration
}

// newManagedIdentity returns the managed identity of endpoint (the
// identityEndpoint key), else of the environment: App Service's or
// Container Apps' endpoint (IDENTITY_ENDPOINT), else the instance
// metadata service. Either endpoint speaks App Service's protocol when
// IDENTITY_HEADER is set, as App Service and Container Apps set it beside
// IDENTITY_ENDPOINT. retry holds the waits of the retries.
func newManagedIdentity(endpoint, clientID, resource string, retry restapi.Options) (*managedIdentity, error) {
	m := &managedIdentity{endpoint: endpoint, clientID: clientID, resource: resource, header: secret.Value(os.Getenv(EnvIdentityHeader)),
		retries: cmp.Or(retry.MaxRetries, restapi.DefaultMaxRetries), minWait: cmp.Or(retry.MinWait, restapi.DefaultMinWait),
		maxWait: cmp.Or(retry.MaxWait, restapi.DefaultMaxWait)}
	switch e := os.Getenv(EnvIdentityEndpoint); {
	case m.endpoint != "":
	case e != "" && m.header == "":
		return nil, fmt.Errorf("managed identity: %s is set but %s is not: the App Service or Container Apps environment is incomplete", EnvIdentityEndpoint, EnvIdentityHeader)
	case e != "":
		m.endpoint = e
	default:
		m.endpoint, m.header = DefaultIMDS, ""
	}
	return m, nil
}

// appService reports whether the endpoint speaks App Service's protocol.
func (m *managedIdentity) appService() bool { return m.header != "" }

func (m *managedIdentity) Where() string { return "the managed identity endpoint " + m.endpoint }

// MetadataEndpoints is the identity endpoint, never reached through a
// proxy (restapi.MetadataEndpoints).
func (m *managedIdentity) MetadataEndpoints() []string { return []string{m.endpoint} }

func (m *managedIdentity) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	return oauth2.ReuseTokenSource(nil, &identityTokens{ctx: ctx, hc: hc, m: m})
}

// identityTokens asks the endpoint for a token.
type identityTokens struct {
	ctx context.Context
	hc  *http.Client
	m   *managedIdentity
}

// imdsGoneWait is the least wait after a 410 of the instance metadata
// service (at most maxWait): with the default retries, the token is asked
// for over more than the 70 seconds Microsoft documents.
const imdsGoneWait = 10 * time.Second

// identityToken is the endpoint's answer: expires_in and expires_on are
// strings of seconds (the instance metadata service sends both, App
// Service expires_on).
type identityToken struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   json.RawMessage `json:"expires_in"`
	ExpiresOn   json.RawMessage `json:"expires_on"`
	Error       string          `json:"error"`
	Description string          `json:"error_description"`
}

// Token asks for a token, again after the instance metadata service's 404
// or 410 (up to m.retries times).
func (t *identityTokens) Token() (*oauth2.Token, error) {
	for attempt := 0; ; attempt++ {
		tok, status, err := t.once()
		if err == nil || t.m.appService() || (status != http.StatusNotFound && status != http.StatusGone) || attempt >= t.m.retries {
			return tok, err
		}
		wait := restapi.Backoff(t.m.minWait, t.m.maxWait, attempt, nil)
		if status == http.StatusGone {
			wait = max(wait, min(imdsGoneWait, t.m.maxWait))
		}
		timer := time.NewTimer(wait)
		select {
		case <-t.ctx.Done():
			timer.Stop()
			return nil, t.ctx.Err()
		case <-timer.C:
		}
	}
}

// once sends one token request; status is the answer's (0 for none).
func (t *identityTokens) once() (*oauth2.Token, int, error) {
	req, err := t.request()
	if err != nil {
		return nil, 0, err
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	var it identityToken
	jerr := json.Unmarshal(body, &it)
	if resp.StatusCode != http.StatusOK || jerr != nil || it.AccessToken == "" {
		return nil, resp.StatusCode, &oauth2.RetrieveError{Response: resp, Body: body, ErrorCode: it.Error, ErrorDescription: it.Description}
	}
	return &oauth2.Token{AccessToken: it.AccessToken, TokenType: "Bearer", Expiry: it.expiry(time.Now())}, resp.StatusCode, nil
}

// request is the token request: the resource, the API version and the
// client id of a user-assigned identity, with the header the endpoint
// checks.
func (t *identityTokens) request() (*http.Request, error) {
	m := t.m
	q := url.Values{"resource": {m.resource}, "api-version": {"2018-02-01"}}
	if m.appService() {
		q.Set("api-version", "2019-08-01")
	}
	if m.clientID != "" {
		q.Set("client_id", m.clientID)
	}
	u, err := url.Parse(m.endpoint)
	if err != nil {
		return nil, fmt.Errorf("managed identity endpoint %q: %w", m.endpoint, err)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(t.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if m.appService() {
		req.Header.Set("X-IDENTITY-HEADER", m.header.Reveal())
	} else {
		req.Header.Set("Metadata", "true")
	}
	return req, nil
}

// expiry reads expires_on (Unix seconds), else expires_in (seconds from
// now); a token without either is renewed in five minutes.
func (it *identityToken) expiry(now time.Time) time.Time {
	if s, err := seconds(it.ExpiresOn); err == nil {
		return time.Unix(s, 0)
	}
	if s, err := seconds(it.ExpiresIn); err == nil {
		return now.Add(time.Duration(s) * time.Second)
	}
	return now.Add(5 * time.Minute)
}

// seconds reads a number of seconds sent as a JSON number or string.
func seconds(raw json.RawMessage) (int64, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	if s == "" {
		return 0, errors.New("none")
	}
	return strconv.ParseInt(s, 10, 64)
}
