package googlefake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// fake starts the demo domain for a new service account.
func fake(t *testing.T) (*Server, *Key) {
	t.Helper()
	k, err := NewKey("sa@orgsync-fake.iam.gserviceaccount.com", "1080001")
	if err != nil {
		t.Fatal(err)
	}
	s := Start(Demo(k.Account), Options{})
	t.Cleanup(s.Close)
	return s, k
}

// assertion signs claims with k, changed by edit.
func assertion(t *testing.T, k *Key, aud string, edit func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": k.Account.Email, "sub": DemoSubject, "aud": aud, "scope": strings.Join(ReadOnlyScopes, " "),
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": now.String()}
	if edit != nil {
		edit(c)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = k.Account.KeyID
	signed, err := tok.SignedString(k.private)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// post asks the token endpoint of s and returns the status and the
// answer's error (or access_token).
func post(t *testing.T, s *Server, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(s.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func grant(a string) url.Values { return url.Values{"grant_type": {jwtBearer}, "assertion": {a}} }

// TestTokenEndpointRefusals: the token endpoint refuses as Google does an
// assertion that is replayed, expired, too long-lived, for another
// audience, badly signed, of an unknown account, without scope, or of a
// client without delegation; it grants a good one.
func TestTokenEndpointRefusals(t *testing.T) {
	t.Parallel()
	s, k := fake(t)
	other, _ := NewKey(k.Account.Email, k.Account.ClientID)
	aud := GoogleTokenURI // wherever the assertion is sent
	good := assertion(t, k, aud, nil)
	if st, body := post(t, s, grant(good)); st != 200 || body["access_token"] == "" {
		t.Fatalf("good assertion: %d %v", st, body)
	}
	for name, c := range map[string]struct {
		form   url.Values
		status int
		code   string
		desc   string
	}{
		"replayed": {grant(good), 400, "invalid_grant", "used before"},
		"expired": {grant(assertion(t, k, aud, func(c jwt.MapClaims) {
			c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
		})), 400, "invalid_grant", "short-lived"},
		"too long-lived":                     {grant(assertion(t, k, aud, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(2 * time.Hour).Unix() })), 400, "invalid_grant", "short-lived"},
		"the fake's own address as audience": {grant(assertion(t, k, s.TokenURL(), nil)), 400, "invalid_grant", "audience"},
		"issued in the future": {grant(assertion(t, k, aud, func(c jwt.MapClaims) {
			c["iat"], c["exp"] = time.Now().Add(5*time.Second).Unix(), time.Now().Add(time.Hour).Unix()
		})), 400, "invalid_grant", "short-lived"},
		"another key":     {grant(assertion(t, other, aud, nil)), 400, "invalid_grant", "Invalid JWT Signature."},
		"unknown account": {grant(assertion(t, k, aud, func(c jwt.MapClaims) { c["iss"] = "x@y.iam.gserviceaccount.com" })), 400, "invalid_grant", "account not found"},
		"no scope":        {grant(assertion(t, k, aud, func(c jwt.MapClaims) { delete(c, "scope") })), 400, "invalid_scope", "Empty or missing scope"},
		"scope not delegated": {grant(assertion(t, k, aud, func(c jwt.MapClaims) { c["scope"] = scopeBase + "user" })), 401,
			"unauthorized_client", "not authorized for any of the scopes"},
		"unknown subject": {grant(assertion(t, k, aud, func(c jwt.MapClaims) { c["sub"] = "ghost@example.com" })), 400, "invalid_grant", "Invalid email or User ID"},
		"grant type":      {url.Values{"grant_type": {"client_credentials"}}, 400, "unsupported_grant_type", "client_credentials"},
	} {
		st, body := post(t, s, c.form)
		desc, _ := body["error_description"].(string)
		if st != c.status || body["error"] != c.code || !strings.Contains(desc, c.desc) {
			t.Errorf("%s: %d %v, want %d %s %q", name, st, body, c.status, c.code, c.desc)
		}
	}
}

// get calls the API with token and returns the status and the decoded
// answer.
func get(t *testing.T, s *Server, token, pathQuery string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+apiPrefix+pathQuery, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("%s: %s", pathQuery, data)
	}
	return resp.StatusCode, body
}

// reason returns error.errors[0].reason of an error answer.
func reason(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	r, _ := errs[0].(map[string]any)["reason"].(string)
	return r
}

// TestDirectoryAPI: paging by pageToken with maxResults, its limits,
// scopes, the subject's role, field selections and custom schemas.
func TestDirectoryAPI(t *testing.T) {
	t.Parallel()
	s, k := fake(t)
	token := func(edit func(jwt.MapClaims)) string {
		_, body := post(t, s, grant(assertion(t, k, GoogleTokenURI, edit)))
		tok, _ := body["access_token"].(string)
		return tok
	}
	admin := token(nil)
	var emails []string
	for q := "users?customer=my_customer&maxResults=3&fields=nextPageToken,users(primaryEmail)"; ; {
		st, body := get(t, s, admin, q)
		if st != 200 {
			t.Fatalf("%s: %d %v", q, st, body)
		}
		users, _ := body["users"].([]any)
		for _, u := range users {
			emails = append(emails, u.(map[string]any)["primaryEmail"].(string))
			if len(u.(map[string]any)) != 1 {
				t.Errorf("fields not applied: %v", u)
			}
		}
		next, _ := body["nextPageToken"].(string)
		if next == "" {
			break
		}
		q = "users?customer=my_customer&maxResults=3&fields=nextPageToken,users(primaryEmail)&pageToken=" + url.QueryEscape(next)
	}
	if len(emails) != 7 || emails[6] != "gina@example.com" {
		t.Errorf("paged users %v", emails)
	}
	_, body := get(t, s, admin, "users?customer=my_customer&projection=custom&customFieldMask=Employment&maxResults=1")
	u := body["users"].([]any)[0].(map[string]any)
	if cs, _ := u["customSchemas"].(map[string]any); cs["Employment"] == nil {
		t.Errorf("custom schema not projected: %v", u)
	}
	_, body = get(t, s, admin, "groups/engineering@example.com/members?includeDerivedMembership=true")
	if n := len(body["members"].([]any)); n != 6 { // alice, bob, gina, Platform Team, dave, frank
		t.Errorf("derived members: %d, want 6: %v", n, body)
	}
	pageOfGroups := "groups?customer=my_customer&maxResults=1"
	_, body = get(t, s, admin, pageOfGroups)
	next := body["nextPageToken"].(string)
	for name, c := range map[string]struct {
		token, query string
		status       int
		reason       string
	}{
		"no token":                 {"", "users?customer=my_customer", 401, "authError"},
		"maxResults 501":           {admin, "users?customer=my_customer&maxResults=501", 400, "invalid"},
		"members 201":              {admin, "groups/design@example.com/members?maxResults=201", 400, "invalid"},
		"bad field":                {admin, "users?customer=my_customer&fields=users(mail)", 400, "invalidParameter"},
		"mask without custom":      {admin, "users?customer=my_customer&customFieldMask=Employment", 400, "invalid"},
		"no customer":              {admin, "users", 400, "badRequest"},
		"token of another listing": {admin, "users?customer=my_customer&pageToken=" + url.QueryEscape(next), 400, "invalid"},
		"unknown group":            {admin, "groups/sales@example.com", 404, "notFound"},
		"scope missing":            {token(func(c jwt.MapClaims) { c["scope"] = ReadOnlyScopes[0] }), pageOfGroups, 403, "insufficientPermissions"},
		"not an admin":             {token(func(c jwt.MapClaims) { c["sub"] = "bob@example.com" }), pageOfGroups, 403, "forbidden"},
		"no subject":               {token(func(c jwt.MapClaims) { delete(c, "sub") }), pageOfGroups, 403, "forbidden"},
	} {
		st, body := get(t, s, c.token, c.query)
		if st != c.status || reason(body) != c.reason {
			t.Errorf("%s: %d %v, want %d %s", name, st, body, c.status, c.reason)
		}
	}
}
