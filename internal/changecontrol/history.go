package changecontrol

import (
	"fmt"
	"strings"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// History returns the applied changes the state directory keeps of user
// (email, or username@domain; empty: all), of organization org (a name of
// targets:; empty: all) and since the age since ("90m", "7d"; empty: all),
// each option named by its flag in the errors.
func (c *Control) History(user, org, since string) ([]store.Entry, error) {
	f := store.Filter{User: strings.TrimSpace(user), Org: org}
	if since != "" {
		d, err := config.ParseAge(since)
		if err != nil {
			return nil, fmt.Errorf("--since %q: %w", since, err)
		}
		f.Since = time.Now().Add(-d)
	}
	if org != "" {
		if _, err := run.Target(c.config(), "--org", org); err != nil {
			return nil, err
		}
	}
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	return dir.History(f)
}
