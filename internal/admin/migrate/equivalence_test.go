package migrate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
)

// orgsyncDesired is what orgsync wants in each organization ("" the
// primary, the others by name) with the configuration at path: the
// sources read and shared among the organizations as a run does.
func orgsyncDesired(t *testing.T, path string) desiredState {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("the migrated configuration does not load: %v\n%s", err, data)
	}
	j, err := run.New(cfg, run.Overrides{}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := j.ReadSources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Problems) > 0 {
		t.Logf("source problems (bad records, skipped as the incumbent skips them): %v", d.Problems)
	}
	parts := j.Split(d)
	out := desiredState{}
	for i := range cfg.Targets {
		tg := &cfg.Targets[i]
		org := tg.Name
		if i == 0 {
			org = ""
		}
		part := parts[tg.Name]
		if cfg.Scope.ExcludeUnmappedUsers {
			part, _ = part.LeaveOutUnmapped()
		}
		out[org] = map[string]wantUser{}
		for _, u := range part.Users.All() {
			if u.Type == reconcile.FederatedID && u.Country == "" {
				continue // it cannot be created (the plan says so), as with the incumbent
			}
			w := wantUser{Type: string(u.Type), Email: strings.ToLower(u.Email), Username: strings.ToLower(firstNonEmpty(u.Username, u.Email)),
				First: u.FirstName, Last: u.LastName, Country: u.Country}
			if !strings.Contains(w.Username, "@") {
				w.Domain = strings.ToLower(u.Domain)
			}
			for _, g := range u.Groups {
				w.Groups = append(w.Groups, strings.ToLower(g))
			}
			w.Groups = dedupe(w.Groups)
			out[org][w.Email+"|"+w.Username] = w
		}
	}
	return out
}

// sameDesired fails the test where the two desired states differ.
func sameDesired(t *testing.T, incumbent, orgsync desiredState) {
	t.Helper()
	for _, org := range sortedKeys(incumbent, orgsync) {
		a, b := incumbent[org], orgsync[org]
		for _, k := range sortedKeys(a, b) {
			x, inA := a[k]
			y, inB := b[k]
			switch {
			case !inA:
				t.Errorf("organization %q: orgsync wants %v, the incumbent does not", org, y)
			case !inB:
				t.Errorf("organization %q: the incumbent wants %v, orgsync does not", org, x)
			case x.String() != y.String():
				t.Errorf("organization %q: %s differs:\n  incumbent %v\n  orgsync   %v", org, k, x, y)
			}
		}
	}
}

func sortedKeys[V any](maps ...map[string]V) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// csvRuns are the ways the incumbent is run from the CSV file in the
// equivalence tests: its command lines.
var csvRuns = [][]string{
	{"--connector", "csv", "users.csv"},
	{"--connector", "csv", "users.csv", "--users", "all"},
	{"--connector", "csv", "users.csv", "--users", "all", "--exclude-unmapped-users"},
	{"--users", "file", "users.csv"},
	{"--connector", "csv", "users.csv", "--users", "group", "Adobe_All_Apps_Users,Marketing"},
	{"--connector", "csv", "users.csv", "--users", "all", "--user-filter", "[a-f].*@example.com"},
	{"--connector", "csv", "users.csv", "--users", "all", "--no-process-groups"},
}

// TestEquivalenceCSVPublished checks, for the published example (each of
// its main file's commented options on in turn, and the CSV connector's)
// read from a CSV file, that the migrated configuration wants the users
// the incumbent wants, with the same identity types, names, countries and
// groups, in each way the incumbent is run.
func TestEquivalenceCSVPublished(t *testing.T) {
	t.Parallel()
	main := readFixture(t, "user-sync-config.yml")
	conn := readFixture(t, "connector-csv.yml")
	type variation struct{ name, main, conn string }
	cases := []variation{{"as published", main, conn}}
	for _, v := range variants(main) {
		cases = append(cases, variation{"main " + v.name, v.text, conn})
	}
	for _, v := range variants(conn) {
		cases = append(cases, variation{"csv " + v.name, main, v.text})
	}
	for _, c := range cases {
		for _, flags := range csvRuns {
			t.Run(c.name+"/"+strings.Join(flags, " "), func(t *testing.T) {
				dir := fixtureDir(t, true)
				writeFile(t, filepath.Join(dir, "user-sync-config.yml"), strings.Replace(c.main, `# csv: "connector-csv.yml"`, `csv: "connector-csv.yml"`, 1))
				writeFile(t, filepath.Join(dir, "connector-csv.yml"), c.conn)
				equivalent(t, dir, flags, nil)
			})
		}
	}
}

// equivalent migrates the configuration in dir and compares the two
// tools' desired states.
func equivalent(t *testing.T, dir string, flags []string, ldap *ldapDirectory) desiredState {
	t.Helper()
	in := readIncumbent(t, filepath.Join(dir, "user-sync-config.yml"), flags)
	res, path := migrateIn(t, dir, flags...)
	if !res.Report.Check.Loads {
		t.Fatalf("the migrated configuration does not load: %q\n%s", res.Report.Check.Problems, res.Config)
	}
	var want desiredState
	if ldap != nil {
		want = in.desired(ldap.conn(t))
	} else {
		want = in.desired(nil)
	}
	got := orgsyncDesired(t, path)
	sameDesired(t, want, got)
	if t.Failed() {
		t.Logf("migrated configuration:\n%s", res.Config)
	}
	if len(want[""]) == 0 {
		t.Errorf("the incumbent wants nobody: the test proves nothing")
	}
	return want
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/published", name))
	if err != nil {
		t.Fatal(err)
	}
	return filled.Replace(string(data))
}
