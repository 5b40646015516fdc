package main

import (
	"encoding/json"
	"net/http"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/store"
)

// apiRuns is the status page's /api/runs of the daemon at base, read
// with the header pairs (nil when it does not answer).
type apiRuns struct {
	statuspage.Status
	Banner []statuspage.BannerLine `json:"banner"`
}

func apiRunsOf(base string, header ...string) *apiRuns {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/runs", nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var a apiRuns
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&a) != nil {
		return nil
	}
	return &a
}

// lastRunOf is the last run record an open status page at base shows
// (nil before the first).
func lastRunOf(base string) *store.Run {
	a := apiRunsOf(base)
	if a == nil || len(a.Runs) == 0 {
		return nil
	}
	return &a.Runs[len(a.Runs)-1]
}

// shoot saves a full-page screenshot of the browser as name in the
