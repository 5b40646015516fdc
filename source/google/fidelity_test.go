package google_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// TestGroupByAlias: a rule naming a group by one of its aliases finds it
// (groups.get answers for an alias with the group's primary email) and
// maps its members.
func TestGroupByAlias(t *testing.T) {
	d := startDemo(t, googlefake.Options{}, func(dom *googlefake.Domain) {
		dom.Groups[2].Aliases = []string{"designers@example.com"} // Design
	})
	res, err := read(t, d.cfg, []mapping.Rule{{Directory: "designers@example.com", Targets: []string{"Design"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if !slices.Equal(got["carol@example.com"], []string{"Design"}) || !slices.Equal(got["dave@example.com"], []string{"Design"}) {
		t.Errorf("by alias: %v", got)
	}
}

// TestWholeAccountAndOtherMembers: a group whose member is the whole
// account (CUSTOMER) gives every user its targets; an external member,
// an owner and a suspended member are what they are.
func TestWholeAccountAndOtherMembers(t *testing.T) {
	d := startDemo(t, googlefake.Options{}, func(dom *googlefake.Domain) {
		m := &dom.Groups[3] // Marketing
		m.Members = append(m.Members, googlefake.Customer, "partner@agency.example", "100000000000000000007")
		m.Owners = []string{"100000000000000000005"}
	})
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if len(got) != 5 {
		t.Errorf("users %v: gina is suspended, the partner of another domain", got)
	}
	for email, groups := range got {
		if !slices.Contains(groups, "Marketing") {
			t.Errorf("%s: %v, want Marketing (the whole account is a member)", email, groups)
		}
	}
}

// TestRefusalsAreNotMissingGroups: the Admin SDK API not enabled, API
// access off and a group of another domain fail the read with their own
// advice, never as a missing group or a subject that is not an
// administrator.
func TestRefusalsAreNotMissingGroups(t *testing.T) {
	for name, c := range map[string]struct {
		o     googlefake.Options
		rules []mapping.Rule
		want  []string
	}{
		"API not enabled": {googlefake.Options{APIDisabled: true}, rules, []string{"accessNotConfigured", "enable the Admin SDK API (admin.googleapis.com) in the Google Cloud project " + googlefake.FakeProject}},
		"API access off":  {googlefake.Options{APIAccessOff: true}, rules, []string{"domainCannotUseApis", "API access is off"}},
		"another domain's group": {googlefake.Options{}, []mapping.Rule{{Directory: "team@other.example", Targets: []string{"X"}}},
			[]string{"403", "team@other.example may be of another Google Workspace account"}},
	} {
		d := startDemo(t, c.o, nil)
		_, err := read(t, d.cfg, c.rules)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", name, err, w)
			}
		}
		if err != nil && (strings.Contains(err.Error(), "it must be an administrator") && name != "another domain's group" || strings.Contains(err.Error(), "not found")) {
			t.Errorf("%s: wrong advice: %v", name, err)
		}
	}
}

// TestPageTokenExpired: a page token older than Google allows is
// answered 503 backendError; the read fails saying why.
func TestPageTokenExpired(t *testing.T) {
	d := startDemo(t, googlefake.Options{PageTokenLifetime: time.Nanosecond}, nil)
	d.cfg.PageSize = 2
	_, err := read(t, d.cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "backendError") || !strings.Contains(err.Error(), "page token older than an hour") {
		t.Fatalf("expired page token: %v", err)
	}
}

// TestUnderTheQuota: with the fake enforcing a sustained quota and a
// limit of concurrent requests, the source's own rate limit under it
// reads without a single throttled or refused request.
func TestUnderTheQuota(t *testing.T) {
	d := startDemo(t, googlefake.Options{Quota: googlefake.Quota{PerMinute: 1200, Window: time.Second, Concurrent: 5}}, nil)
	d.cfg.PageSize = 1
	d.cfg.RateLimit = 1080 // 90% of the quota
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	if st := d.s.Stats(); st.Throttled != 0 || st.Requests < 10 {
		t.Errorf("stats %+v: want no throttled request", st)
	}
	over := startDemo(t, googlefake.Options{Quota: googlefake.Quota{PerMinute: 600, Window: time.Second}}, nil)
	over.cfg.RateLimit = 600_000 // far over the quota: throttled, waited out and retried
	over.cfg.PageSize = 1
	src := open(t, over.cfg, rules)
	src.Retry.MinWait, src.Retry.MaxWait = 50*time.Millisecond, 200*time.Millisecond
	if _, err := src.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := over.s.Stats(); st.Throttled == 0 {
		t.Errorf("stats %+v: a rate over the quota was not throttled", st)
	}
}
