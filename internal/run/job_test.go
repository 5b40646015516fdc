package run

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
)

// exampleConfig loads an example's configuration pointed at a simulator
// of the example organizations, serving over loopback HTTP until the test
// ends; edits are pairs of text to replace in it and what replaces it.
func exampleConfig(t *testing.T, example string, edits ...string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, examples.FS); err != nil {
		t.Fatal(err)
	}
	seed, err := umsim.LoadSeed(filepath.Join(dir, "sim", "orgs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := umsim.NewMulti(seed, umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	path := filepath.Join(dir, example, "orgsync.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "http://127.0.0.1:8080", hs.URL)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("%s lacks %q", path, edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// planJob makes a Job of cfg and plans it.
func planJob(t *testing.T, cfg *config.Config, ov Overrides, opts Options) (*Job, *Plans) {
	t.Helper()
	j, err := New(cfg, ov, opts)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := j.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return j, plans
}

// recorder is an Observer that keeps what it hears.
type recorder struct {
	mu      sync.Mutex
	read    []string // organization:users read
	applied []string
}

func (r *recorder) Read(p *OrgPlan, cur *reconcile.Current) {
	r.mu.Lock()
	r.read = append(r.read, fmt.Sprintf("%s:%d", p.Org.Name, cur.Users.Len()))
	r.mu.Unlock()
}
func (r *recorder) Applied(x *Result) bool {
	r.mu.Lock()
	r.applied = append(r.applied, x.Org.Name)
	r.mu.Unlock()
	return true
}

// TestPlanApplyConverges plans both example organizations, applies the
// plans, and plans again with the same Job (as the daemon does): nothing
// is left to do. The observer hears each read and each result.
func TestPlanApplyConverges(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg")
	rec := &recorder{}
	j, plans := planJob(t, cfg, Overrides{}, Options{Observer: rec})
	ctx := context.Background()
	if len(plans.Orgs) != 2 || plans.InSync() {
		t.Fatalf("want two organizations with changes, got %d (in sync: %v)", len(plans.Orgs), plans.InSync())
	}
	for _, p := range plans.Orgs {
		if p.Err != nil || p.Plan.Empty() {
			t.Errorf("%s: plan %v, error %v", p.Org.Name, p.Plan, p.Err)
		}
	}
	res, err := j.ApplyAll(ctx, plans, Real)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || r.Applied == nil || r.Applied.Requests == 0 || len(r.ByKind) == 0 || r.Stats.Total() == 0 {
			t.Errorf("%s: result %+v", r.Org.Name, r)
		}
	}
	again, err := j.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !again.InSync() {
		t.Errorf("the second plan has changes")
	}
	if len(rec.applied) != 2 {
		t.Errorf("observer heard results of %v, want 2", rec.applied)
	}
	// Each organization read twice: before the sync, and with the users
	// it created.
	if slices.Sort(rec.read); !slices.Equal(rec.read, []string{"emea:4", "emea:5", "main:5", "main:8"}) {
		t.Errorf("observer heard reads %v, want each organization's users before and after", rec.read)
	}
}

// TestDryApplySendsNothing: a dry run goes the same way as a real one and
// changes nothing.
func TestDryApplySendsNothing(t *testing.T) {
	t.Parallel()
	j, plans := planJob(t, exampleConfig(t, "csv"), Overrides{}, Options{})
	ctx := context.Background()
	res, err := j.ApplyAll(ctx, plans, Dry)
	if err != nil || len(res) != 1 || res[0].Applied == nil || res[0].Applied.Requests == 0 || len(res[0].ByKind) != 0 {
		t.Fatalf("dry run: %+v, %v", res[0], err)
	}
	again, err := j.Plan(ctx)
	if err != nil || again.InSync() {
		t.Errorf("after a dry run the plan should be unchanged: in sync %v, %v", again.InSync(), err)
	}
}

// TestSyncShowFailsOneOrganization: an error showing one organization's
// plan fails that organization only, named in the run's error.
func TestSyncShowFailsOneOrganization(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg")
	rec := &recorder{}
	j, err := New(cfg, Overrides{}, Options{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	res, err := j.Sync(context.Background(), Real, func(g *Gated) error {
		if g.OrgPlan().Org.Name == "emea" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "organization emea: boom") || strings.Contains(err.Error(), "main") {
		t.Errorf("error %v, want emea's only", err)
	}
	if res[0].Err != nil || res[0].Applied == nil || !errors.Is(res[1].Err, boom) || res[1].Applied != nil {
		t.Errorf("results %+v, %+v", res[0], res[1])
	}
	if len(rec.applied) != 2 {
		t.Errorf("observer heard results of %v", rec.applied)
	}
}

// TestOverridesLeaveTheConfigurationAlone: the command line's limit on
// removals and scope reach every organization's run, and the loaded
// configuration is not changed.
func TestOverridesLeaveTheConfigurationAlone(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg")
	limit, err := config.ParseLimit("3")
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(cfg, Overrides{MaxRemovals: &limit, ScopeGroups: []string{"eng"}, Orgs: []string{"emea"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.OrgNames(); len(got) != 1 || got[0] != "emea" {
		t.Errorf("organizations %v, want emea", got)
	}
	if p := j.byOrg["emea"].policy.Policy(); p.MaxRemovals.Count != 3 || p.MaxRemovals.Percent != 0 {
		t.Errorf("emea's limit on removals %+v, want 3", p.MaxRemovals)
	}
	if cfg.Targets[1].Safety.MaxRemovals.N != 2 || cfg.Safety.MaxRemovals.N != 50 || len(cfg.Scope.Groups) != 0 {
		t.Errorf("the configuration changed: %+v, %+v, %v", cfg.Targets[1].Safety, cfg.Safety, cfg.Scope.Groups)
	}
	if j.scope.Groups[0] != "eng" {
		t.Errorf("the run's scope %+v", j.scope)
	}
	if _, err := New(cfg, Overrides{Orgs: []string{"emea", "apac"}}, Options{}); err == nil ||
		!strings.Contains(err.Error(), `--orgs: no organization "apac"`) || !strings.Contains(err.Error(), "main, emea") {
		t.Errorf("unknown organization: %v", err)
	}
}

// TestExplain: plan --explain finds which rule gave each group, and what
// the plan does for the user in each organization (view.Explain writes it).
func TestExplain(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg")
	j, plans := planJob(t, cfg, Overrides{Explain: "dave@example.com"}, Options{})
	x := j.Explain(plans)
	if x == nil || x.Name != "dave@example.com" || len(x.Records) == 0 {
		t.Fatalf("explanation %+v: want dave's records", x)
	}
	rules := map[string]string{}
	for _, r := range x.Records {
		for i, g := range r.DirectoryGroups {
			for _, rule := range r.Rules[i] {
				rules[g] = fmt.Sprintf("mapping[%d] %s gives %s", rule.Index, rule.Directory, strings.Join(rule.Targets, ", "))
			}
		}
	}
	if rules["eng"] != "mapping[0] eng gives Engineering, Acrobat Pro" || rules["design"] != "mapping[1] design gives Design, emea::Design" {
		t.Errorf("rules %q", rules)
	}
	if len(x.Desired) != 1 || x.Desired[0].Key != "dave@example.com" || len(x.Desired[0].Groups) == 0 {
		t.Errorf("desired %+v", x.Desired)
	}
	for i, org := range []string{"main", "emea"} {
		if i >= len(x.Orgs) || x.Orgs[i].Org != org || len(x.Orgs[i].Changes) != 1 || x.Orgs[i].Changes[0].Kind != reconcile.KindCreate {
			t.Errorf("organization %s: want dave created there; %+v", org, x.Orgs)
		}
	}
	quiet, _ := New(cfg, Overrides{}, Options{})
	if x := quiet.Explain(plans); x != nil {
		t.Errorf("explain without a user: %+v", x)
	}
}

// TestApplyRefusesWhatTheGateDidNotMake: Apply sends only what the safety
// gate made; a Gated made any other way is refused and nothing is sent.
func TestApplyRefusesWhatTheGateDidNotMake(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "csv")
	j, _ := planJob(t, cfg, Overrides{}, Options{})
	for _, g := range []*Gated{nil, {}} {
		if res := j.Apply(context.Background(), g); !errors.Is(res.Err, errNotGated) || res.Applied != nil {
			t.Errorf("apply of %v: %+v, want refused", g, res)
		}
	}
	if _, again := planJob(t, cfg, Overrides{}, Options{}); again.InSync() {
		t.Error("a refused apply changed the organization")
	}
}

// TestScopeGroupsReachTheSources: the run's scope groups (here from the
// command line) reach the sources through their options: only the
// members of "design" are read, the others are left out, and the loaded
// configuration still has no scope groups.
func TestScopeGroupsReachTheSources(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "csv")
	j, err := New(cfg, Overrides{ScopeGroups: []string{"design"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := j.ReadSources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, u := range d.Users.All() {
		read = append(read, u.Email)
	}
	slices.Sort(read)
	if strings.Join(read, ",") != "carol@example.com,dave@example.com" || len(d.Filtered) == 0 || len(cfg.Scope.Groups) != 0 {
		t.Errorf("read %v, left out %d, configuration's scope groups %v", read, len(d.Filtered), cfg.Scope.Groups)
	}
}
