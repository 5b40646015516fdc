package changecontrol

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run"
)

// TestHistoryFilters: the history of a real run, by user, organization
// and age; a mistaken option is an error naming its flag; without a
// state directory there is no history.
func TestHistoryFilters(t *testing.T) {
	t.Parallel()
	path, _ := csvExample(t, true)
	cfg := load(t, path)
	c := New(cfg, zap.NewNop())
	syncOnce(t, c, cfg, run.Real)
	for _, tt := range []struct {
		user, org, since string
		want             int // entries; -1: any but none
	}{
		{"", "", "", -1},
		{" DAVE@example.com ", "", "", 1},
		{"dave@example.com", "default", "1h", 1},
		{"nobody@example.com", "", "7d", 0},
	} {
		entries, err := c.History(tt.user, tt.org, tt.since)
		if err != nil || (tt.want >= 0 && len(entries) != tt.want) || (tt.want < 0 && len(entries) == 0) {
			t.Errorf("History(%q, %q, %q): %d entries, %v; want %d", tt.user, tt.org, tt.since, len(entries), err, tt.want)
		}
	}
	for _, tt := range [][2]string{{"emea", "--org"}, {"", "--since"}} {
		since := ""
		if tt[0] == "" {
			since = "a week"
		}
		if _, err := c.History("", tt[0], since); err == nil || !strings.Contains(err.Error(), tt[1]) {
			t.Errorf("org %q since %q: %v, want an error naming %s", tt[0], since, err, tt[1])
		}
	}
	path, _ = csvExample(t, false)
	if _, err := New(load(t, path), zap.NewNop()).History("", "", ""); !errors.Is(err, ErrNoStateDir) {
		t.Errorf("without state.dir: %v", err)
	}
}
