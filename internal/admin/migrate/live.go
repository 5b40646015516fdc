package migrate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// shownUsers is how many of the users a count concerns the report names.
const shownUsers = 10

// CountOnLivePlan signs in with the migrated configuration at path (its
// secrets provided), plans every organization as orgsync plan does, and
// counts, in each secondary organization, the users its plan changes whom
// the incumbent leaves alone there: the members, in the primary, of the
// exclusion groups (the one difference of several organizations migrate
// cannot write away, see multiOrgExclusion). It returns a line a
// secondary organization, for the report; none for one organization or
// no exclusion group.
func CountOnLivePlan(ctx context.Context, path string) ([]string, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	groups := cfg.Policy.Exclude.Groups
	if !cfg.MultiOrg() || len(groups) == 0 {
		return nil, nil
	}
	j, err := run.New(cfg, run.Overrides{}, run.Options{})
	if err != nil {
		return nil, err
	}
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	excluded, err := primaryMembers(ctx, j, cfg.Primary(), groups)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range plans.Orgs[1:] {
		if p.Err != nil {
			return nil, fmt.Errorf("organization %s: %w", p.Org.Name, p.Err)
		}
		affected := changedAmong(p.Plan, excluded)
		line := fmt.Sprintf("organization %s: the live plan changes %d user(s) whom the incumbent leaves alone there (members of %s in the primary organization)", p.Org.Name, len(affected), strings.Join(groups, ", "))
		if len(affected) > 0 {
			line += ": " + strings.Join(affected[:min(len(affected), shownUsers)], ", ")
			if len(affected) > shownUsers {
				line += fmt.Sprintf(" and %d more", len(affected)-shownUsers)
			}
			line += "; add them to " + p.Org.Path() + ".policy.exclude.usernames to leave them alone"
		}
		out = append(out, line)
	}
	return out, nil
}

// primaryMembers returns the keys of the members of groups in the primary
// organization.
func primaryMembers(ctx context.Context, j *run.Job, primary *config.NamedTarget, groups []string) (map[string]bool, error) {
	c, err := j.Client(primary)
	if err != nil {
		return nil, err
	}
	members := map[string]bool{}
	for _, g := range groups {
		for page, err := range c.GroupUsers(ctx, g, umapi.GroupUsersOptions{ExcludeGroups: true}) {
			if err != nil {
				return nil, fmt.Errorf("organization %s, the members of %s: %w", primary.Name, g, err)
			}
			for i := range page.Users {
				u := umtarget.ModelUser(&page.Users[i])
				members[u.Key()] = true
			}
		}
	}
	return members, nil
}

// changedAmong returns the users among keys that plan changes, sorted.
func changedAmong(plan *reconcile.Plan, keys map[string]bool) []string {
	var out []string
	for _, c := range plan.Changes {
		if k := c.User.Key(); k != "" && keys[k] && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
