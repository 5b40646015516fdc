package okta_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/okta"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// Benchmark scale: the figure.
const (
	benchUsers   = 100_000
	benchGroups  = 30
	benchPerUser = 3
)

func benchOrg(b *testing.B, o oktafake.Options) (*oktafake.Server, okta.Config) {
	b.Helper()
	s := oktafake.Start(oktafake.Generate(oktafake.DemoToken, benchUsers, benchGroups, benchPerUser), o)
	b.Cleanup(s.Close)
	b.Setenv("OKTA_BENCH_TOKEN", oktafake.DemoToken)
	cfg := okta.Config{OrgURL: s.URL}
	cfg.APIToken.Env = "OKTA_BENCH_TOKEN"
	return s, cfg
}

// readSource reads cfg with the rule that maps every group to a target
// of the same name (and the expressions p, when not nil), checking the
// result.
func readSource(b *testing.B, cfg okta.Config, p *expr.Program) {
	src, err := cfg.Open("bench", source.Options{Mapper: sourcetest.Mapper(b, sourcetest.Identity()), Expressions: p})
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ReadN(b, src, benchUsers, benchPerUser)
}

// rawPaging makes the same requests as the source with plain net/http,
// following the Link headers and discarding the bodies.
func rawPaging(b *testing.B, s *oktafake.Server) {
	pages := 0
	get := func(u string) {
		for ; u != ""; pages++ {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("Authorization", "SSWS "+oktafake.DemoToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %v %v", u, err, resp)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			u = nextLink(resp.Header.Values("Link"))
		}
	}
	get(s.URL + "/api/v1/groups?limit=1000")
	for j := range benchGroups {
		get(fmt.Sprintf("%s/api/v1/groups/00g%017d/users?limit=1000", s.URL, j))
	}
	get(s.URL + "/api/v1/users?limit=200&search=" + url.QueryEscape(`status eq "ACTIVE"`))
	// At least: the group page, 300,000 memberships in pages of 1,000
	// and 100,000 users in pages of 200.
	if least := 1 + benchUsers*benchPerUser/1000 + benchUsers/200; pages < least {
		b.Fatalf("raw paging got %d pages, want %d or more: Link not followed", pages, least)
	}
}

// nextLink is the simplest reading of the fake's Link headers, one link
// each as Okta sends them: the one that ends in rel="next".
func nextLink(links []string) string {
	for _, l := range links {
		if next, ok := strings.CutSuffix(l, `>; rel="next"`); ok {
			return strings.TrimPrefix(next, "<")
		}
	}
	return ""
}

// BenchmarkRead100k reads 100,000 users with 3 group memberships each
// from the fake without rate limits, and in the same iteration makes the
// same requests with plain net/http (rawPaging).
func BenchmarkRead100k(b *testing.B) {
	s, cfg := benchOrg(b, oktafake.Options{})
	sourcetest.CompareRaw(b, func() { rawPaging(b, s) }, func() { readSource(b, cfg, nil) })
}

// BenchmarkRead100kRateLimited is the same read with the fake allowing
// 100 requests a second (X-Rate-Limit-*; 429 past the limit).
func BenchmarkRead100kRateLimited(b *testing.B) {
	s, cfg := benchOrg(b, oktafake.Options{WindowLimit: 100})
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
	s, cfg := benchOrg(b, oktafake.Options{})
	sourcetest.CompareRaw(b, func() { rawPaging(b, s) }, func() { readSource(b, cfg, p) })
}
