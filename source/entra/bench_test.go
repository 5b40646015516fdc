package entra_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
)

// Benchmark scale: the figure.
const (
	benchUsers   = 100_000
	benchGroups  = 30
	benchPerUser = 3
)

// benchTenant serves benchUsers users in benchGroups groups, each user in
// benchPerUser of them.
func benchTenant(b *testing.B, o entrafake.Options) (*entrafake.Server, entra.Config) {
	b.Helper()
	app := entrafake.App{ClientID: entrafake.DemoClientID, Secret: entrafake.DemoSecret}
	s := entrafake.Start(entrafake.Generate(app, benchUsers, benchGroups, benchPerUser), o)
	b.Cleanup(s.Close)
	b.Setenv("ENTRA_BENCH_SECRET", entrafake.DemoSecret)
	cfg := entra.Config{TenantID: "bench-tenant", ClientID: entrafake.DemoClientID, LoginURL: s.URL, GraphURL: s.URL}
	cfg.ClientSecret.Env = "ENTRA_BENCH_SECRET"
	return s, cfg
}

// readSource reads cfg with the rule that maps every group to a target
// of the same name (and the expressions p, when not nil), checking the
// result.
func readSource(b *testing.B, cfg entra.Config, p *expr.Program) {
	src, err := cfg.Open("bench", source.Options{Mapper: sourcetest.Mapper(b, sourcetest.Identity()), Expressions: p})
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ReadN(b, src, benchUsers, benchPerUser)
}

// rawPaging makes the same requests as the source with plain net/http:
// a token, the group listing, each group's transitiveMembers and the users,
// every page read whole and only its @odata.nextLink decoded.
func rawPaging(b *testing.B, s *entrafake.Server) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {entrafake.DemoClientID},
		"client_secret": {entrafake.DemoSecret}, "scope": {s.URL + "/.default"}}
	resp, err := http.PostForm(s.URL+"/bench-tenant/oauth2/v2.0/token", form)
	if err != nil {
		b.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	get := func(u string) {
		for u != "" {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %v %v", u, err, resp)
			}
			var p struct {
				Next string `json:"@odata.nextLink"`
			}
			err = json.NewDecoder(resp.Body).Decode(&p)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			u = p.Next
		}
	}
	get(s.URL + "/v1.0/groups?%24select=id%2CdisplayName&%24top=999")
	for j := range benchGroups {
		get(fmt.Sprintf("%s/v1.0/groups/00000000-0000-0000-0001-%012d/transitiveMembers?%%24select=id&%%24top=999", s.URL, j))
	}
	get(s.URL + "/v1.0/users?%24select=" + url.QueryEscape(strings.Join([]string{"id", "accountEnabled", "mail", "givenName", "surname", "usageLocation"}, ",")) + "&%24top=999")
}

// BenchmarkRead100k reads 100,000 users with 3 group memberships each
// from the fake without throttling, and in the same iteration makes the
// same requests with plain net/http (rawPaging): source-ms/op against
// raw-ms/op, and their ratio.
func BenchmarkRead100k(b *testing.B) {
	s, cfg := benchTenant(b, entrafake.Options{})
	sourcetest.CompareRaw(b, func() { rawPaging(b, s) }, func() { readSource(b, cfg, nil) })
}

// BenchmarkRead100kThrottled is the same read with the fake answering
// every 20th Graph request 429 with Retry-After: 1.
func BenchmarkRead100kThrottled(b *testing.B) {
	s, cfg := benchTenant(b, entrafake.Options{ThrottleEvery: 20, RetryAfter: 1})
	for b.Loop() {
		readSource(b, cfg, nil)
	}
	b.ReportMetric(float64(s.Stats().Throttled)/float64(b.N), "429s/op")
}

// BenchmarkRead100kExpressions is BenchmarkRead100k with a filter, a
// groups and a set expression that read every user's directory groups:
// the users are built once the groups are known.
func BenchmarkRead100kExpressions(b *testing.B) {
	p := sourcetest.GroupExpressions(b)
	s, cfg := benchTenant(b, entrafake.Options{})
	sourcetest.CompareRaw(b, func() { rawPaging(b, s) }, func() { readSource(b, cfg, p) })
}
