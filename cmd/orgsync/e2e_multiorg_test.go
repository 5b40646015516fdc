package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// The organizations of examples/sim/orgs.yaml.
const (
	mainOrg = "1234ABCD@VendorOrg"
	emeaOrg = "5678EF01@VendorOrg"
)

// TestMultiOrgPlanSyncPlan syncs the CSV example into the primary and the
// secondary organization of examples/multiorg: the dry run plans each
// organization and changes neither; the sync maps the designers into
// emea::Design and only them into emea; a second plan has nothing to do.
func TestMultiOrgPlanSyncPlan(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url)
	main, emea := s.Org(mainOrg), s.Org(emeaOrg)

	r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	if r.code != exitChanges {
		t.Fatalf("plan: exit %d, want %d\n%s\n%s", r.code, exitChanges, r.stdout, r.stderr)
	}
	mainPart, emeaPart, ok := strings.Cut(r.stdout, "== organization emea (5678EF01@VendorOrg)")
	if !ok || !strings.HasPrefix(mainPart, "== organization main (1234ABCD@VendorOrg)") {
		t.Fatalf("plan not grouped by organization:\n%s", r.stdout)
	}
	if !strings.Contains(emeaPart, "+ create dave@example.com") || !strings.Contains(emeaPart, "oscar@example.com") ||
		strings.Contains(emeaPart, "erin@example.com") || strings.Contains(emeaPart, "Engineering") {
		t.Errorf("emea's plan: want dave created into Design and oscar's Design removed, nothing else:\n%s", emeaPart)
	}
	if !strings.Contains(mainPart, "+ create erin@example.com") {
		t.Errorf("main's plan lacks erin:\n%s", mainPart)
	}
	for _, org := range []*umsim.Server{main, emea} {
		if _, found := groupsOf(org, "dave@example.com"); found {
			t.Fatalf("plan changed %s", org.OrgID())
		}
	}

	r = runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if g, found := groupsOf(emea, "dave@example.com"); !found || strings.Join(g, ",") != "Design" {
		t.Errorf("dave in emea: %v (found %v), want [Design]", g, found)
	}
	if _, found := groupsOf(emea, "erin@example.com"); found {
		t.Error("erin, mapped to no group of emea, was added to it")
	}
	if g, _ := groupsOf(emea, "oscar@example.com"); len(g) != 0 {
		t.Errorf("oscar, in no source, kept emea's managed groups: %v", g)
	}
	if g, found := groupsOf(emea, "frank@example.com"); !found || len(g) != 0 {
		t.Errorf("frank, in the source but mapped to no group of emea: %v (found %v), want a member without Design", g, found)
	}
	if g, _ := groupsOf(main, "dave@example.com"); !hasFold(g, "Design") || !hasFold(g, "Engineering") {
		t.Errorf("dave in main: %v", g)
	}
	for _, want := range []string{"main: applied:", "emea: applied:", `"org":"emea"`, `"org":"main"`} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("sync output lacks %s:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, `"msg":"source read"`); n != 1 {
		t.Errorf("the source was read %d times, want once for both organizations", n)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("second plan: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestMultiOrgSourceUserMappedElsewhere: with unmatchedUsers preserve,
// a member of emea in no source (oscar) keeps his groups, while one who is
// in the source but mapped to no group of emea (frank) loses emea's Design:
// he is listed, and no rule gives it to him.
func TestMultiOrgSourceUserMappedElsewhere(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	emea := s.Org(emeaOrg)
	if g, _ := groupsOf(emea, "oscar@example.com"); !hasFold(g, "Design") {
		t.Errorf("oscar (unmatched, preserved) lost Design: %v", g)
	}
	if g, found := groupsOf(emea, "frank@example.com"); !found || hasFold(g, "Design") {
		t.Errorf("frank kept Design in emea: %v (found %v)", g, found)
	}
	if _, found := groupsOf(emea, "erin@example.com"); found {
		t.Error("erin, mapped to no group of emea, was added to it")
	}
	r := runBinary(t, nil, "validate", "--config", cfg, "--check-target")
	for _, want := range []string{"organization main (1234ABCD@VendorOrg): 6 desired user(s)", "organization emea (5678EF01@VendorOrg): 2 desired user(s)",
		"targets[1]: signed in"} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("validate lacks %q: exit %d\n%s\n%s", want, r.code, r.stdout, r.stderr)
		}
	}
	// The admin commands work on one organization: --org, default the primary.
	r = runBinary(t, nil, "users", "list", "--config", cfg, "--org", "emea")
	if r.code != exitOK || !strings.Contains(r.stdout, "oscar@example.com") || strings.Contains(r.stdout, "erin@example.com") {
		t.Errorf("users list --org emea: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "users", "list", "--config", cfg); !strings.Contains(r.stdout, "erin@example.com") {
		t.Errorf("users list (the primary): exit %d\n%s", r.code, r.stdout)
	}
}

// TestMultiOrgDryRunJSON: plan --output json has one entry per
// organization with its counts and changes, and sends nothing.
func TestMultiOrgDryRunJSON(t *testing.T) {
	t.Parallel()
	s, cfg, r := planJSONOnMultiSim(t, "multiorg", "unmatchedUsers: remove-groups", "unmatchedUsers: remove-groups\n  reportFile: unmatched.csv")
	var plan struct {
		FormatVersion int `json:"formatVersion"`
		Organizations []struct {
			Name    string `json:"name"`
			OrgID   string `json:"orgId"`
			Counts  struct{ Create, Update int }
			Changes []struct{ Kind string }
		} `json:"organizations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if plan.FormatVersion != 2 || len(plan.Organizations) != 2 {
		t.Fatalf("plan = %+v", plan)
	}
	m, e := plan.Organizations[0], plan.Organizations[1]
	if m.Name != "main" || m.OrgID != mainOrg || m.Counts.Create != 3 || len(m.Changes) != 6 {
		t.Errorf("main = %+v", m)
	}
	if e.Name != "emea" || e.OrgID != emeaOrg || e.Counts.Create != 1 || e.Counts.Update != 2 || len(e.Changes) != 3 {
		t.Errorf("emea = %+v", e)
	}
	for _, org := range s.Servers() {
		if n := org.Stats().Requests[gate.EndpointAction]; len(n) > 0 {
			t.Errorf("a dry run sent action requests to %s: %v", org.OrgID(), n)
		}
	}
	// The unmatched users of each organization: the primary's at the path
	// given, the others' with the organization's name added.
	for file, want := range map[string]string{"unmatched.csv": "mallory@example.com", "unmatched-emea.csv": "oscar@example.com"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(cfg), file))
		if err != nil || !strings.Contains(string(b), want) || strings.Count(string(b), "\n") != 2 {
			t.Errorf("%s: %v\n%s", file, err, b)
		}
	}
	// --orgs runs some of the organizations (one CronJob each, say).
	before := s.Org(mainOrg).Stats().Total()
	r = runBinary(t, nil, "plan", "--config", cfg, "--orgs", "emea", "--detailed-exitcode")
	if r.code != exitChanges || strings.Contains(r.stdout, "organization main") || !strings.Contains(r.stdout, "== organization emea") {
		t.Errorf("plan --orgs emea: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s.Org(mainOrg).Stats().Total() != before {
		t.Error("plan --orgs emea read main")
	}
	r = runBinary(t, nil, "plan", "--config", cfg, "--orgs", "main")
	if r.code != exitOK || strings.Contains(r.stdout, "organization emea") || !strings.Contains(r.stdout, "== organization main") {
		t.Errorf("plan --orgs main: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--orgs", "emea,apac"); r.code != exitError || !strings.Contains(r.stderr, `--orgs: no organization "apac"`) {
		t.Errorf("plan --orgs with an unknown name: exit %d\n%s", r.code, r.stderr)
	}
}

// TestMultiOrgFailureInOneOrganization: emea answers every request 500;
// main is synced all the same, and the run fails naming emea.
func TestMultiOrgFailureInOneOrganization(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	s.Org(emeaOrg).SetFaults(gate.Faults{ErrorRate: 1})
	cfg := configFor(t, dir, "multiorg", s.url,
		"    members: mapped\n", "    members: mapped\n    retries: {max: 1, minWait: 10ms, maxWait: 20ms}\n")
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError {
		t.Fatalf("sync: exit %d, want %d\n%s\n%s", r.code, exitError, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "organization emea: reading the organization") || strings.Contains(r.stderr, "organization main:") {
		t.Errorf("the error does not name emea (alone):\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "main: applied:") || !strings.Contains(r.stdout, "== organization emea (5678EF01@VendorOrg)\n! failed:") {
		t.Errorf("output:\n%s", r.stdout)
	}
	if g, found := groupsOf(s.Org(mainOrg), "dave@example.com"); !found || !hasFold(g, "Design") {
		t.Errorf("main was not synced while emea failed: dave %v (found %v)", g, found)
	}
	r = runBinary(t, nil, "plan", "--config", cfg, "--output", "json", "--detailed-exitcode")
	var plan struct {
		Organizations []struct {
			Name, Error string
			Counts      *struct{ Create int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || r.code != exitError || len(plan.Organizations) != 2 {
		t.Fatalf("plan --output json with emea down: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if m, e := plan.Organizations[0], plan.Organizations[1]; m.Error != "" || m.Counts == nil || e.Counts != nil ||
		!strings.Contains(e.Error, "reading the organization") {
		t.Errorf("organizations = %+v", plan.Organizations)
	}
}

// TestSingleTargetOnMultiOrgSimulator: a configuration with one target:
// works unchanged against a simulator of several organizations, and its
// JSON plan keeps the shape of one organization.
func TestSingleTargetOnMultiOrgSimulator(t *testing.T) {
	t.Parallel()
	s, cfg, r := planJSONOnMultiSim(t, "csv")
	var plan map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatal(err)
	}
	if plan["organizations"] != nil || plan["changes"] == nil || plan["counts"] == nil {
		t.Errorf("single-target JSON plan changed shape: %s", r.stdout)
	}
	if strings.Contains(r.stderr, `"org":`) {
		t.Errorf("single-target logs carry an org field:\n%s", r.stderr)
	}
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK || strings.Contains(r.stdout, "default:") {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, found := groupsOf(s.Org(emeaOrg), "dave@example.com"); found {
		t.Error("a single-target run touched the other organization")
	}
	if g, _ := groupsOf(s.Org(mainOrg), "dave@example.com"); !hasFold(g, "Design") {
		t.Errorf("dave in main: %v", g)
	}
}

// planJSONOnMultiSim serves examples/sim/orgs.yaml and runs plan --output
// json with the example's configuration pointed at it (and the configFor
// replacements).
func planJSONOnMultiSim(t *testing.T, example string, replace ...string) (s *multiSim, cfg string, r result) {
	t.Helper()
	dir := exampleDir(t)
	s = startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg = configFor(t, dir, example, s.url, replace...)
	r = runBinary(t, nil, "plan", "--config", cfg, "--output", "json")
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	return s, cfg, r
}

// TestMultiOrgDaemon: the daemon syncs every organization on each run,
// with one sign-in per organization for all runs, and its metrics carry
// each organization's series.
func TestMultiOrgDaemon(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url)
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	base := "http://" + listening(t, stderr)
	waitFor(t, "two successful runs", 20*time.Second, func() bool {
		_, m := get(base + "/metrics")
		return metricValue(m, `orgsync_runs_total{result="success"}`) >= 2
	})
	_, m := get(base + "/metrics")
	for _, want := range []string{
		`orgsync_changes_total{kind="create"} 4`,
		`orgsync_org_changes_total{kind="create",org="main"} 3`,
		`orgsync_org_changes_total{kind="create",org="emea"} 1`,
		`orgsync_org_last_success_timestamp_seconds{org="emea"}`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, org := range s.Servers() {
		if n := org.Stats().Requests[gate.EndpointToken]; n[200] != 1 {
			t.Errorf("%s: token requests = %v, want one sign-in for all runs", org.OrgID(), n)
		}
	}
	if g, _ := groupsOf(s.Org(emeaOrg), "dave@example.com"); !hasFold(g, "Design") {
		t.Errorf("the daemon did not sync emea: dave %v", g)
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d after SIGTERM\n%s", code, stderr.String())
	}
}

// TestMultiOrgSlowOrganizationHoldsNoOtherBack: emea answers every request
// 1.5 s late; main is planned, applied and summed up before emea even sends
// its changes: each organization goes on as soon as its own plan is ready.
func TestMultiOrgSlowOrganizationHoldsNoOtherBack(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	s.Org(emeaOrg).SetFaults(gate.Faults{Latency: 1500 * time.Millisecond})
	cfg := configFor(t, dir, "multiorg", s.url)
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mainDone := strings.Index(r.stderr, `"msg":"summary","org":"main"`)
	emeaSends := strings.Index(r.stderr, `"msg":"sending request 1/1 (3 entries)","org":"emea"`)
	if mainDone < 0 || emeaSends < 0 || mainDone > emeaSends {
		t.Errorf("main's summary (at %d) does not come before emea sends (at %d):\n%s", mainDone, emeaSends, r.stderr)
	}
	if first, _, _ := strings.Cut(r.stdout, "== organization emea"); !strings.Contains(first, "== organization main") {
		t.Errorf("main's plan is not printed first, as soon as it is ready:\n%s", r.stdout)
	}
}

// TestMultiOrgOwnPolicy: emea's own policy removes its users in no source
// while the top-level policy, main's, only takes their managed groups;
// each plan names the settings of its own policy: emea's under
// targets[1].policy, main's under the top-level policy.
func TestMultiOrgOwnPolicy(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url, "    members: mapped\n",
		"    members: mapped\n    policy: {unmatchedUsers: remove, exclude: {groups: [_org_admin]}}\n")
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	plans := map[string]string{} // by organization: sync shows each plan as it is ready
	for _, block := range strings.Split(r.stdout, "== organization ")[1:] {
		name, _, _ := strings.Cut(block, " ")
		plans[name] = block
	}
	emea, main := plans["emea"], plans["main"]
	for _, want := range []string{"in no source; targets[1].policy.unmatchedUsers says what happens to them", "left alone by targets[1].policy.exclude"} {
		if !strings.Contains(emea, want) {
			t.Errorf("emea's plan lacks %q:\n%s", want, emea)
		}
	}
	if !strings.Contains(main, "in no source; policy.unmatchedUsers says") || strings.Contains(main, "targets[") {
		t.Errorf("main's plan does not name the top-level policy's settings:\n%s", main)
	}
	if _, found := groupsOf(s.Org(emeaOrg), "oscar@example.com"); found {
		t.Error("oscar, in no source, is still in emea, whose policy removes such users")
	}
	if _, found := groupsOf(s.Org(emeaOrg), "admin-emea@example.com"); !found {
		t.Error("emea's excluded administrator was removed")
	}
	if g, found := groupsOf(s.Org(mainOrg), "mallory@example.com"); !found || len(g) != 0 {
		t.Errorf("mallory in main (remove-groups): %v (found %v), want a member with no group", g, found)
	}
}
