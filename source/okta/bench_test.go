package okta_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

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
// of the same name, checking the result.
func readSource(b *testing.B, cfg okta.Config) {
	src, err := okta.Open("bench", cfg, sourcetest.Mapper(b, sourcetest.Identity()), nil)
	if err != nil {
		b.Fatal(err)
	}
	sourcetest.ReadN(b, src, benchUsers, benchPerUser)
}

// rawPaging makes the same requests as the source with plain net/http,
// following the Link headers and discarding the bodies.
func rawPaging(b *testing.B, s *oktafake.Server) {
	get := func(u string) {
		for u != "" {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("Authorization", "SSWS "+oktafake.DemoToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %v %v", u, err, resp)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			u = nextLink(resp.Header.Get("Link"))
		}
	}
	get(s.URL + "/api/v1/groups?limit=1000")
	for j := range benchGroups {
		get(fmt.Sprintf("%s/api/v1/groups/00g%017d/users?limit=1000", s.URL, j))
	}
	get(s.URL + "/api/v1/users?limit=200&search=" + url.QueryEscape(`status eq "ACTIVE"`))
}

// nextLink is the simplest reading of the fake's Link header: its second
// link, when there is one, is rel="next".
func nextLink(h string) string {
	var self, next string
	if n, _ := fmt.Sscanf(h, "<%s rel=\"self\", <%s rel=\"next\"", &self, &next); n == 2 {
		return next[:len(next)-2]
	}
	return ""
}

// BenchmarkRead100k reads 100,000 users with 3 group memberships each
// from the fake without rate limits, and in the same iteration makes the
// same requests with plain net/http (rawPaging).
func BenchmarkRead100k(b *testing.B) {
	s, cfg := benchOrg(b, oktafake.Options{})
	sourcetest.CompareRaw(b, func() { rawPaging(b, s) }, func() { readSource(b, cfg) })
}

// BenchmarkRead100kRateLimited is the same read with the fake allowing
// 100 requests a second (X-Rate-Limit-*; 429 past the limit).
func BenchmarkRead100kRateLimited(b *testing.B) {
	s, cfg := benchOrg(b, oktafake.Options{WindowLimit: 100})
	for b.Loop() {
		readSource(b, cfg)
	}
	b.ReportMetric(float64(s.Stats().Throttled)/float64(b.N), "429s/op")
}
