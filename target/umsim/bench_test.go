package umsim

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// peakRSSMiB is the process's peak resident memory (VmHWM) in MiB.
func peakRSSMiB(b *testing.B) float64 {
	if runtime.GOOS != "linux" {
		b.Skip("the peak memory is read from Linux's /proc/self/status")
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("VmHWM not found")
	return 0
}

// BenchmarkSeedMillion generates a 1,000,000-user organization and builds
// the simulator's indexes from it (New), reporting the process's peak
// resident memory. Run it alone (-bench SeedMillion -benchtime 1x) for an
// honest peak.
func BenchmarkSeedMillion(b *testing.B) {
	for b.Loop() {
		st := Generate(GenOptions{Users: 1_000_000, Seed: 1})
		srv, err := New(st, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(srv.st.users); n != 1_000_000 {
			b.Fatalf("%d users", n)
		}
	}
	b.ReportMetric(peakRSSMiB(b), "peak-RSS-MiB")
}

// BenchmarkPageMillion serves page 250 (2,000 users) of a 1,000,000-user
// organization through the whole handler (gate included), reporting the
// median time per page.
func BenchmarkPageMillion(b *testing.B) {
	st := Generate(GenOptions{Users: 1_000_000, Seed: 1})
	cert, err := os.ReadFile("testdata/integration-cert.pem")
	if err != nil {
		b.Fatal(err)
	}
	st.Integrations = []Integration{{ClientID: testClient, ClientSecret: "s", TechnicalAccountID: "T@techacct.vendor.com", Certificate: string(cert)}}
	srv, err := New(st, Options{})
	if err != nil {
		b.Fatal(err)
	}
	token := benchToken(b, srv)
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", umwire.BasePath+"/users/"+st.Org.ID+"/250", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set(umwire.HeaderAPIKey, testClient)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return rec
	}
	start := time.Now()
	get() // builds the listing order once
	first := time.Since(start)
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		rec := get()
		times = append(times, time.Since(t0))
		if rec.Header().Get(umwire.HeaderPageSize) != "2000" {
			b.Fatalf("page size %s", rec.Header().Get(umwire.HeaderPageSize))
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(first.Microseconds())/1000, "first-page-ms")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

func benchToken(b *testing.B, srv *Server) string {
	form := url.Values{umwire.FormGrantType: {umwire.GrantClientCredentials}, umwire.FormClientID: {testClient}, umwire.FormClientSecret: {"s"}}
	req := httptest.NewRequest("POST", umwire.PathClientCredentials, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var tr umwire.TokenResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); rec.Code != http.StatusOK || err != nil {
		b.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	return tr.AccessToken
}
