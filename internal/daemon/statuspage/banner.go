package statuspage

import (
	"time"

	"github.com/orgsync/orgsync/internal/store"
)

// BannerLine is one organization's line of the page's banner.
type BannerLine struct {
	Org string
	// LastSuccess is when its last run that did not fail ended (zero:
	// none is recorded).
	LastSuccess time.Time
	// FailingSince is when the first of the failed runs since then
	// started, zero when its last run did not fail; Why is the last
	// failure's phase and error.
	FailingSince time.Time
	Why          string
}

// Failing reports whether the organization's last run failed.
func (b BannerLine) Failing() bool { return !b.FailingSince.IsZero() }

// Banner is, for each organization of runs (oldest first), in the order
// they first ran: its last success and, when its last run failed, since
// when and why.
func Banner(runs []store.Run) []BannerLine {
	var out []BannerLine
	at := map[string]int{}
	for _, r := range runs {
		i, ok := at[r.Org]
		if !ok {
			i, at[r.Org] = len(out), len(out)
			out = append(out, BannerLine{Org: r.Org})
		}
		b := &out[i]
		if r.Result != store.RunFailure {
			b.LastSuccess, b.FailingSince, b.Why = r.End, time.Time{}, ""
			continue
		}
		if b.FailingSince.IsZero() {
			b.FailingSince = r.Start
		}
		b.Why = r.Error
		if r.Phase != "" {
			b.Why = r.Phase + ": " + r.Error
		}
	}
	return out
}
