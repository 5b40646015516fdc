package google

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// signJWT is domain-wide delegation without a key file (restapi.Auth):
// the delegation's assertion is signed by the IAM Credentials API's
// signJwt, as the service account Account, by a caller with the ambient
// credential (which needs the Service Account Token Creator role on
// Account), then exchanged at the token endpoint as a key file's
// assertion is.
type signJWT struct {
	cred credential
	// Account is the service account with domain-wide delegation; "":
	// the credential's own.
	Account, Subject, TokenURL, IAMURL string
	Scopes                             []string
}

func (j *signJWT) Where() string { return j.TokenURL }

// MetadataEndpoints are the ambient credential's (restapi.MetadataEndpoints).
func (j *signJWT) MetadataEndpoints() []string { return metadataOf(j.cred) }

func (j *signJWT) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	iam := outbound.Above(hc.Transport, func(next http.RoundTripper) http.RoundTripper {
		return &oauth2.Transport{Source: restapi.NamedTokenSource(j.cred.TokenSource(ctx, hc), j.cred.Where()), Base: next}
	})
	return oauth2.ReuseTokenSource(nil, tokenFunc(func() (*oauth2.Token, error) {
		account := j.Account
		if account == "" {
			var err error
			if account, err = j.cred.account(ctx, hc); err != nil {
				return nil, fmt.Errorf("asking %s for its service account: %w", j.cred.Where(), err)
			}
			if account == "" {
				return nil, errNoAccount
			}
		}
		assertion, err := j.sign(ctx, iam, account, time.Now())
		if err != nil {
			return nil, err
		}
		return exchange(ctx, hc, j.TokenURL, assertion)
	}))
}

// errNoAccount: the credential is a federated principal's, which has no
// service account to sign as.
var errNoAccount = fmt.Errorf("auth: signJwt needs a service account to sign as: set serviceAccount, or use an external account configuration that impersonates one")

// assertionLifetime is how long a delegation assertion lives: Google
// allows an hour. It is dated backdate ago, so that a clock a little
// ahead of Google's is not refused.
const (
	assertionLifetime = time.Hour
	backdate          = 10 * time.Second
)

// sign has IAM Credentials sign the delegation's claims as account: the
// account, the subject, the scopes, Google's token URI as audience, and
// a unique id, so that no two token requests send the same assertion.
func (j *signJWT) sign(ctx context.Context, iam *http.Client, account string, now time.Time) (string, error) {
	iat := now.Add(-backdate)
	id := make([]byte, 16)
	_, _ = rand.Read(id) // never fails
	claims, _ := json.Marshal(map[string]any{"iss": account, "sub": j.Subject, "scope": strings.Join(j.Scopes, " "), "aud": DefaultTokenURL,
		"iat": iat.Unix(), "exp": iat.Add(assertionLifetime).Unix(), "jti": hex.EncodeToString(id)})
	body, _ := json.Marshal(map[string]string{"payload": string(claims)})
	u := strings.TrimRight(j.IAMURL, "/") + "/v1/projects/-/serviceAccounts/" + url.PathEscape(account) + ":signJwt"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := iam.Do(req)
	if err != nil {
		return "", fmt.Errorf("signJwt as %s: %w", account, err)
	}
	defer resp.Body.Close()
	var out struct {
		SignedJWT string    `json:"signedJwt"`
		Error     *rpcError `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.SignedJWT == "" {
		if out.Error == nil {
			out.Error = &rpcError{Code: resp.StatusCode, Message: http.StatusText(resp.StatusCode)}
		}
		out.Error.Account = account
		return "", out.Error
	}
	return out.SignedJWT, nil
}

// rpcError is a Google Cloud API's error answer (google.rpc.Status),
// here IAM Credentials' refusal to sign.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Reason string `json:"reason"`
	} `json:"details"`
	Account string `json:"-"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("signJwt as %s: %d %s: %s", e.Account, e.Code, e.Status, e.Message)
}

// reason is the ErrorInfo reason ("IAM_PERMISSION_DENIED"), "" if none.
func (e *rpcError) reason() string {
	for _, d := range e.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// exchange asks the token endpoint for an access token with a signed
// assertion (the JWT bearer grant).
func exchange(ctx context.Context, hc *http.Client, tokenURL, assertion string) (*oauth2.Token, error) {
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	body, err := send(hc, req)
	if err != nil {
		return nil, err
	}
	return tokenOf(body)
}
