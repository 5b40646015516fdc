package statuspage

import (
	"encoding/json"
	"net/http"
)

// APIFormatVersion is the version of /api/runs' format (apiRuns, whose
// fields docs/change-control.md lists), which it serves as formatVersion.
// A field added keeps it; a field whose meaning changes, or that goes,
// takes a new one, and so does such a change to the run records or the
// approvals it holds (store's formats, without their own formatVersion).
const APIFormatVersion = 1

// apiRuns is what /api/runs serves: the page's Status (its runs as
// runs.jsonl holds them, its approvals as their files do) and the
// banner's lines.
type apiRuns struct {
	FormatVersion int `json:"formatVersion"`
	Status
	Banner []BannerLine `json:"banner"`
}

// apiRuns serves /api/runs: the page's Status as JSON, with the banner.
func (p *Page) apiRuns(w http.ResponseWriter, _ *http.Request) {
	s := p.Status()
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(apiRuns{FormatVersion: APIFormatVersion, Status: s, Banner: Banner(s.Runs, s.Pending)})
}
