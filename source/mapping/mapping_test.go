package mapping

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/source/diag"
)

func mustNew(t *testing.T, rules ...Rule) *Mapper {
	t.Helper()
	m, err := New(rules)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func TestMapGroup(t *testing.T) {
	t.Parallel()
	const designDN = "cn=design-users,ou=groups,dc=example,dc=com"
	tests := []struct {
		name     string
		rules    []Rule
		group    string
		dn       string
		want     []string
		wantNone bool
	}{
		{name: "exact by name", rules: []Rule{{Directory: "eng", Targets: []string{"Engineering"}}},
			group: "ENG", want: []string{"Engineering"}},
		{name: "exact by DN, spacing and case ignored",
			rules: []Rule{{Directory: "CN=Eng, OU=Groups, DC=example,DC=com", Targets: []string{"Engineering"}}},
			dn:    "cn=eng,ou=groups,dc=example,dc=com", want: []string{"Engineering"}},
		{name: "exact by first RDN", rules: []Rule{{Directory: "cn=eng", Targets: []string{"E"}}},
			dn: "cn=eng,ou=groups,dc=example,dc=com", want: []string{"E"}},
		{name: "exact DN does not match another DN",
			rules: []Rule{{Directory: "cn=eng,ou=groups,dc=example,dc=com", Targets: []string{"E"}}},
			dn:    "cn=eng,ou=other,dc=example,dc=com", wantNone: true},
		{name: "one-to-many", rules: []Rule{{Directory: "eng", Targets: []string{"A", "B", "_admin_A"}}},
			group: "eng", want: []string{"A", "B", "_admin_A"}},
		{name: "pattern with capture on RDN (the issue's example)",
			rules: []Rule{{Pattern: "cn=(.*)-users", Targets: []string{"$1 Users"}}},
			group: "design-users", dn: designDN, want: []string{"design Users"}},
		{name: "pattern is case-insensitive, capture keeps case",
			rules: []Rule{{Pattern: "cn=(.*)-users", Targets: []string{"$1 Users"}}},
			dn:    "CN=Design-Users,OU=Groups,DC=example,DC=com", want: []string{"Design Users"}},
		{name: "pattern on the name", rules: []Rule{{Pattern: "app-(?P<app>[a-z]+)", Targets: []string{"${app} Profile", "All Apps"}}},
			group: "app-photo", want: []string{"photo Profile", "All Apps"}},
		{name: "pattern on the whole DN",
			rules: []Rule{{Pattern: "cn=([^,]+),ou=groups,dc=example,dc=com", Targets: []string{"${1}_g"}}},
			dn:    designDN, want: []string{"design-users_g"}},
		{name: "pattern is anchored", rules: []Rule{{Pattern: "eng", Targets: []string{"E"}}},
			group: "eng-old", wantNone: true},
		{name: "identity mapping", rules: []Rule{{Pattern: "(.*)", Targets: []string{"$1"}}},
			group: "Sales Team", want: []string{"Sales Team"}},
		{name: "empty expansion is dropped", rules: []Rule{{Pattern: "x(.*)", Targets: []string{"$1"}}},
			group: "x", wantNone: true},
		{name: "unmatched group maps to nothing", rules: []Rule{{Directory: "eng", Targets: []string{"E"}}},
			group: "sales", dn: "cn=sales,dc=example", wantNone: true},
		{name: "dedupe across rules, first spelling kept",
			rules: []Rule{
				{Directory: "eng", Targets: []string{"Engineering", "All"}},
				{Pattern: "e.*", Targets: []string{"ENGINEERING", "all", "Other"}},
				{Directory: "cn=eng", Targets: []string{"engineering"}},
			},
			group: "eng", dn: "cn=eng,dc=x", want: []string{"Engineering", "All", "Other"}},
		{name: "two exact rules for one group add up",
			rules: []Rule{{Directory: "eng", Targets: []string{"A"}}, {Directory: "ENG", Targets: []string{"B"}}},
			group: "eng", want: []string{"A", "B"}},
		{name: "escaped comma in DN", rules: []Rule{{Pattern: `cn=(.*)`, Targets: []string{"$1"}}},
			dn: `cn=Smith\, John,ou=g,dc=x`, want: []string{`Smith\, John`}},
		{name: "no rules", group: "eng", wantNone: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustNew(t, tc.rules...)
			got := m.MapGroup(tc.group, tc.dn)
			if tc.wantNone {
				if got != nil {
					t.Fatalf("MapGroup(%q, %q) = %q, want nothing", tc.group, tc.dn, got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("MapGroup(%q, %q) = %q, want %q", tc.group, tc.dn, got, tc.want)
			}
		})
	}
}

// A file names a group by its name, or by an RDN or DN whose first RDN's
// value is the name: each matches the rules as the directory's group would.
func TestMapName(t *testing.T) {
	t.Parallel()
	m := mustNew(t,
		Rule{Directory: "eng", Targets: []string{"Engineering"}},
		Rule{Directory: "cn=ops", Targets: []string{"Ops"}},
		Rule{Pattern: "app-(.*)", Targets: []string{"$1"}},
	)
	// The identity rule keeps the whole string: it is tried first.
	identity := mustNew(t, Rule{Pattern: "(.*)", Targets: []string{"$1"}})
	for _, g := range []string{"Dev=Ops", "cn=design-users", "Team A=B"} {
		if got := identity.MapName(g); len(got) != 1 || got[0] != g {
			t.Errorf("identity MapName(%q) = %q", g, got)
		}
	}
	for g, want := range map[string][]string{
		"ENG":                          {"Engineering"},
		"cn=eng":                       {"Engineering"},
		"CN=Eng, OU=Groups, DC=x":      {"Engineering"},
		"cn=ops,ou=groups":             {"Ops"},
		"ops":                          nil, // the rule names the RDN; a bare name has none
		"Team A=B":                     nil, // not an RDN: "Team A" is no attribute type
		"cn=App-X,ou=g,dc=b":           {"X"},
		"app-Y":                        {"Y"},
		"a=b=c":                        nil,
		"odd, name":                    nil,
		"cn=,ou=groups":                nil,
		"  cn = app-z , ou = groups  ": {"z"},
	} {
		if got := m.MapName(g); !reflect.DeepEqual(got, want) {
			t.Errorf("MapName(%q) = %q, want %q", g, got, want)
		}
	}
	if got := m.ExactGroupsNamed([]string{"cn=ops,ou=groups", "CN=ENG,dc=x"}); !reflect.DeepEqual(got, []string{"eng", "cn=ops"}) {
		t.Errorf("ExactGroupsNamed = %q, want eng and cn=ops", got)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	_, err := New([]Rule{
		{Directory: "ok", Targets: []string{"fine"}},
		{Directory: "a", Pattern: "b", Targets: []string{"x"}},
		{Targets: []string{"x"}},
		{Pattern: "(", Targets: []string{"x"}},
		{Directory: "d"},
		{Directory: "d", Targets: []string{" ", "$1 Users"}},
		{Pattern: "cn=(.*)", Targets: []string{"$2", "$1Users", "${dept}", "${1}Users", "$$1"}},
		{Directory: "d", Targets: []string{strings.Repeat("g", 255), strings.Repeat("g", 256)}},
	})
	var fe diag.FieldErrors
	if !errors.As(err, &fe) {
		t.Fatalf("New error %v is not diag.FieldErrors", err)
	}
	want := map[string]string{
		"[1]":            "not both",
		"[2]":            "set directory",
		"[3].pattern":    "not a valid regular expression",
		"[4].targets":    "at least one target",
		"[5].targets[0]": "empty target",
		"[5].targets[1]": "only pattern rules",
		"[6].targets[0]": "has 1 capture group",
		"[6].targets[1]": "write ${1}Users",
		"[6].targets[2]": `capture group "dept"`,
		"[7].targets[1]": "group name has 256 characters, the service allows at most 255",
	}
	got := map[string]string{}
	for _, e := range fe {
		got[e.Field] = e.Reason
	}
	for field, frag := range want {
		if !strings.Contains(got[field], frag) {
			t.Errorf("problem for %s = %q, want it to contain %q", field, got[field], frag)
		}
	}
	if len(fe) != len(want) {
		t.Errorf("got %d problems, want %d: %v", len(fe), len(want), fe)
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	m := mustNew(t,
		Rule{Directory: "Eng", Targets: []string{"Engineering", "All"}},
		Rule{Directory: "cn=sales,dc=x", Targets: []string{"Sales"}},
		Rule{Directory: "ENG", Targets: []string{"all"}},
		Rule{Pattern: "(.*)-users", Targets: []string{"$1 Users", "Users"}},
	)
	if got, want := m.ExactGroups(), []string{"Eng", "cn=sales,dc=x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExactGroups = %q, want %q", got, want)
	}
	if got, want := m.Targets(), []string{"Engineering", "All", "Sales", "Users"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Targets = %q, want %q", got, want)
	}
	if m.Empty() || !mustNew(t).Empty() {
		t.Errorf("Empty wrong")
	}
}

// FuzzMapGroup checks that any valid rule maps any group without panicking
// and that results are non-empty, trimmed and deduplicated.
func FuzzMapGroup(f *testing.F) {
	f.Add("cn=(.*)-users", "$1 Users", "design-users", "cn=design-users,ou=groups,dc=example,dc=com")
	f.Add("(.*)", "$1", "Sales", "")
	f.Add("(?P<x>a+)b", "${x}-$x", "", `cn=aab\,c,dc=x`)
	f.Fuzz(func(t *testing.T, pattern, target, name, dn string) {
		m, err := New([]Rule{{Pattern: pattern, Targets: []string{target}}, {Directory: name, Targets: []string{"Lit"}}})
		if err != nil {
			return
		}
		got := m.MapGroup(name, dn)
		if byName := m.MapName(dn); strings.TrimSpace(name) != "" && strings.EqualFold(strings.TrimSpace(name), strings.TrimSpace(dn)) && len(byName) == 0 {
			t.Fatalf("MapName(%q) maps to nothing, but the exact rule for %q matches it", dn, name)
		}
		for i, g := range got {
			if g == "" || g != strings.TrimSpace(g) {
				t.Fatalf("untrimmed or empty target %q", g)
			}
			for _, h := range got[:i] {
				if strings.EqualFold(g, h) {
					t.Fatalf("duplicate target %q in %q", g, got)
				}
			}
		}
	})
}

// TestRuleYAML checks the YAML keys of Rule, as the configuration loader
// decodes them (unknown keys rejected).
func TestRuleYAML(t *testing.T) {
	t.Parallel()
	dec := yaml.NewDecoder(strings.NewReader("- directory: eng\n  targets: [E]\n- pattern: \"cn=(.*)\"\n  targets: [\"$1\"]\n"))
	dec.KnownFields(true)
	var rules []Rule
	if err := dec.Decode(&rules); err != nil {
		t.Fatal(err)
	}
	want := []Rule{{Directory: "eng", Targets: []string{"E"}}, {Pattern: "cn=(.*)", Targets: []string{"$1"}}}
	if !reflect.DeepEqual(rules, want) {
		t.Fatalf("decoded %+v, want %+v", rules, want)
	}
}

func TestExactGroupsNamed(t *testing.T) {
	t.Parallel()
	m := mustNew(t, Rule{Directory: "cn=eng, ou=groups", Targets: []string{"E"}}, Rule{Directory: "ops", Targets: []string{"O"}},
		Rule{Pattern: "(.*)", Targets: []string{"$1"}})
	got := m.ExactGroupsNamed([]string{"CN=Eng,OU=Groups", "other"})
	if len(got) != 1 || got[0] != "cn=eng, ou=groups" {
		t.Errorf("ExactGroupsNamed = %q, want the DN rule as written", got)
	}
	if got := (*Mapper)(nil).ExactGroupsNamed([]string{"ops"}); got != nil {
		t.Errorf("nil mapper: %q", got)
	}
}

// TestExplain checks that Explain names each rule that maps a group, in
// order, and that its hits add up to MapName.
func TestExplain(t *testing.T) {
	t.Parallel()
	m, err := New([]Rule{
		{Directory: "eng", Targets: []string{"Engineering"}},
		{Pattern: "(e.*)", Targets: []string{"All $1", "Engineering"}},
		{Directory: "sales", Targets: []string{"Sales"}},
		{Directory: "cn=eng,ou=groups", Targets: []string{"Eng DN"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hits := m.Explain("cn=eng,ou=groups")
	want := []Hit{{Rule: 0, Targets: []string{"Engineering"}}, {Rule: 1, Targets: []string{"All eng", "Engineering"}}, {Rule: 3, Targets: []string{"Eng DN"}}}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Fatalf("Explain = %v, want %v", hits, want)
	}
	var union []string
	for _, h := range hits {
		union = dedupe(union, h.Targets...)
	}
	got := m.MapName("cn=eng,ou=groups")
	slices.Sort(got)
	slices.Sort(union)
	if fmt.Sprint(got) != fmt.Sprint(union) {
		t.Errorf("MapName = %q, the hits give %q", got, union)
	}
	if hits := m.Explain("marketing"); hits != nil {
		t.Errorf("Explain(marketing) = %v, want none", hits)
	}
}
