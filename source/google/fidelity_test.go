package google_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// TestGroupByAlias: a rule naming a group by one of its aliases finds it
// (groups.get answers for an alias with the group's primary email) and
// maps its members.
func TestGroupByAlias(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	// 5 requests a one-second window: the read's 13 or more requests, sent
	// at once, would be throttled without the client's own limit.
	d := startDemo(t, googlefake.Options{Quota: googlefake.Quota{PerMinute: 300, Window: time.Second, Concurrent: 5}}, nil)
	d.cfg.PageSize = 1
	d.cfg.RateLimit = 240 // 80% of the quota
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

// TestMultiValuedCustomFields: a multi-valued custom schema field reaches
// the expressions as a list in user.attributeValues, each value one
// element even with a comma inside (user.attributes keeps all of them
// joined by commas), and a numeric field as its decimal text that int()
// converts; a misspelt variable fails when the expressions are loaded.
func TestMultiValuedCustomFields(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, func(dom *googlefake.Domain) {
		project := func(v string) map[string]any { return map[string]any{"type": "work", "value": v} }
		dom.Users[3].CustomSchemas["Employment"]["projects"] = []any{project("apollo, phase 2"), project("x")} // dave
		dom.Users[3].CustomSchemas["Employment"]["grade"] = 7
		dom.Users[2].CustomSchemas["Employment"]["projects"] = []any{project("gemini")} // carol
		dom.Users[2].CustomSchemas["Employment"]["grade"] = 3.5
	})
	d.cfg.Users.ExtraAttributes = []string{"customSchemas.Employment.projects", "customSchemas.Employment.grade"}
	const (
		projects = `user.attributeValues["customSchemas.Employment.projects"]`
		grade    = `user.attributeValues["customSchemas.Employment.grade"]`
	)
	p, err := expr.Compile(expr.Config{
		Filter: `size(` + grade + `) == 0 || double(user.attributes["customSchemas.Employment.grade"]) >= 3.0`,
		Groups: projects + `.exists(p, p == "x") ? ["Project X"] : []`,
		Set: map[string]string{"lastname": `user.lastname + "/" + string(size(` + projects + `)) + "/" + user.attributes["customSchemas.Employment.projects"] +
			"/" + ` + projects + `.join("|") + "/" + string(size(` + grade + `) == 0 ? 1 : int(double(` + grade + `[0])) + 1)`},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := openWith(t, d.cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: p}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if !slices.Contains(got["dave@example.com"], "Project X") || slices.Contains(got["carol@example.com"], "Project X") || len(got) != 5 {
		t.Errorf("groups %v: only dave is in Project X", got)
	}
	lastnames := map[string]string{}
	for _, u := range res.Users.All() {
		lastnames[u.Email] = u.LastName
	}
	for email, want := range map[string]string{
		"dave@example.com":  "Doe/2/apollo, phase 2,x/apollo, phase 2|x/8",
		"carol@example.com": "Clark/1/gemini/gemini/4",
		"alice@example.com": "Anders/0///1",
	} {
		if lastnames[email] != want {
			t.Errorf("%s: %q, want %q", email, lastnames[email], want)
		}
	}
	_, err = expr.Compile(expr.Config{Groups: `user.attributeValue["customSchemas.Employment.projects"].exists(p, p == "x") ? ["Project X"] : []`})
	if err == nil || !strings.Contains(err.Error(), "groups: ") || !strings.Contains(err.Error(), "user.attributeValue is not a user field (did you mean user.attributeValues?)") {
		t.Errorf("a misspelt variable: %v", err)
	}
}
