package google_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orgsync/orgsync/source/expr"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/google"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
)

// Benchmark scale: the figure.
const (
	benchUsers   = 100_000
	benchGroups  = 30
	benchPerUser = 3
)

// benchDomain starts a generated domain and returns it, its key file and
// a configuration that reads it.
func benchDomain(b *testing.B, o googlefake.Options) (*googlefake.Server, []byte, google.Config) {
	b.Helper()
	key, err := googlefake.NewKey("bench@orgsync-fake.iam.gserviceaccount.com", "108000000000000000009")
	if err != nil {
		b.Fatal(err)
	}
	s := googlefake.Start(googlefake.Generate(key.Account, benchUsers, benchGroups, benchPerUser), o)
	b.Cleanup(s.Close)
	file := key.File(s.TokenURL())
	path := filepath.Join(b.TempDir(), "key.json")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		b.Fatal(err)
	}
	// No rate limit of the source's own: the fake has no quota here.
	return s, file, google.Config{Credentials: secret.Ref{File: path}, Subject: "user0@example.com", APIURL: s.URL, RateLimit: 1 << 30}
}

// readSource reads cfg with the rule that maps every group to a target
// of the same name (and the expressions p, when not nil), checking the
// result.
func readSource(b *testing.B, cfg google.Config, p *expr.Program) {
	src, err := cfg.Open("bench", source.Options{Mapper: sourcetest.Mapper(b, sourcetest.Identity()), Expressions: p})
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ReadN(b, src, benchUsers, benchPerUser)
}

// rawPaging makes the same requests as the source with plain net/http
// and a token of x/oauth2/jwt, one at a time, decoding only each page's
// nextPageToken.
func rawPaging(b *testing.B, s *googlefake.Server, keyFile []byte) {
	var k struct {
		Email string `json:"client_email"`
		Key   string `json:"private_key"`
	}
	_ = json.Unmarshal(keyFile, &k)
	cfg := jwt.Config{Email: k.Email, PrivateKey: []byte(k.Key), Subject: "user0@example.com", Scopes: google.Scopes,
		TokenURL: s.TokenURL(), Audience: googlefake.GoogleTokenURI, PrivateClaims: map[string]any{"jti": fmt.Sprint(b.N, b.Elapsed())}}
	tok, err := cfg.TokenSource(context.Background()).Token()
	if err != nil {
		b.Fatal(err)
	}
	pages := 0
	list := func(path string, q url.Values) {
		for {
			pages++
			var p struct{ NextPageToken string }
			get(b, tok, s.URL+"/admin/directory/v1"+path+"?"+q.Encode(), &p)
			if p.NextPageToken == "" {
				return
			}
			q.Set("pageToken", p.NextPageToken)
		}
	}
	list("/groups", url.Values{"customer": {"my_customer"}, "maxResults": {"200"}, "fields": {"nextPageToken,groups(id,email,name)"}})
	for j := range benchGroups {
		list(fmt.Sprintf("/groups/group%d@example.com/members", j), url.Values{"maxResults": {"200"},
			"includeDerivedMembership": {"true"}, "fields": {"nextPageToken,members(id,type)"}})
	}
	list("/users", url.Values{"customer": {"my_customer"}, "maxResults": {"500"},
		"fields": {"nextPageToken,users(id,suspended,archived,primaryEmail,name/givenName,name/familyName,addresses/countryCode,addresses/primary)"}})
	// At least: 300,000 memberships in pages of 200 and 100,000 users in
	// pages of 500.
	if least := benchUsers*benchPerUser/200 + benchUsers/500; pages < least {
		b.Fatalf("raw paging got %d pages, want %d or more: nextPageToken not followed", pages, least)
	}
}

func get(b *testing.B, tok *oauth2.Token, u string, v any) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	tok.SetAuthHeader(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %v %v", u, err, resp)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
}

// BenchmarkRead100k reads 100,000 users with 3 group memberships each
// from the fake without throttling, and in the same iteration makes the
// same requests with plain net/http (rawPaging). The fake builds each
// listing at its first request: one raw paging before the iterations.
func BenchmarkRead100k(b *testing.B) {
	s, file, cfg := benchDomain(b, googlefake.Options{})
	rawPaging(b, s, file)
	sourcetest.CompareRaw(b, func() { rawPaging(b, s, file) }, func() { readSource(b, cfg, nil) })
}

// BenchmarkRead100kExpressions is BenchmarkRead100k with a filter, a
// groups and a set expression that read every user's directory groups:
// the users are built once the groups are known.
func BenchmarkRead100kExpressions(b *testing.B) {
	p := sourcetest.GroupExpressions(b)
	s, file, cfg := benchDomain(b, googlefake.Options{})
	rawPaging(b, s, file)
	sourcetest.CompareRaw(b, func() { rawPaging(b, s, file) }, func() { readSource(b, cfg, p) })
}

// BenchmarkRead100kUnderQuota reads the 100,000 users with the fake
// enforcing Google's quota, 2,400 requests a minute (over one-second
// windows: 40 at most at once) and at most 10 requests in flight, and the
// source at its default rate limit: no request may be throttled or
// refused, and the read should take at most 1.2 times what the quota
// allows for its requests (quota-ratio).
func BenchmarkRead100kUnderQuota(b *testing.B) {
	const quota = 2400
	s, _, cfg := benchDomain(b, googlefake.Options{Quota: googlefake.Quota{PerMinute: quota, Window: time.Second, Concurrent: 10}})
	cfg.RateLimit = 0 // the default
	for b.Loop() {
		before := s.Stats()
		start := time.Now()
		readSource(b, cfg, nil)
		elapsed := time.Since(start)
		st := s.Stats()
		requests := st.Requests - before.Requests
		if st.Throttled != before.Throttled || st.Faults != before.Faults {
			b.Fatalf("%d requests throttled or refused under the quota", st.Throttled-before.Throttled)
		}
		allowed := time.Duration(float64(requests) / quota * float64(time.Minute))
		b.ReportMetric(float64(requests), "requests/op")
		b.ReportMetric(elapsed.Seconds()/allowed.Seconds(), "quota-ratio")
	}
}
