package expr

import (
	"strings"
	"testing"
)

// FuzzRun compiles an expression as the filter, the groups and a set
// expression (whichever it type-checks as) and runs it over a record made
// of the other inputs: whatever the expression and the record, Run must
// not panic, and what it gives must be usable as is (trimmed, non-empty,
// distinct groups within the limit).
func FuzzRun(f *testing.F) {
	f.Add(`user.country != "CN" && !("contractors" in directoryGroups)`, "Ann", "DE", "Design", "eng")
	f.Add(`user.attributes.department == "Design" ? ["Design", " Design "] : []`, "", "", "Design", "")
	f.Add(`user.attributes.displayName.split(" ")[0]`, "Ann Lee", "", "Ann Lee", "")
	f.Add(`user.attributes.?c.orValue("US")`, "", "cn", "", "contractors")
	f.Add(`directoryGroups.map(g, g.upperAscii())`, "", "", "", " x ")
	f.Add(`user.firstname.split("")`, "\xff\x00\u202e", "", "", "")
	f.Add(`directoryGroups.all(a, directoryGroups.all(b, a + b != ""))`, "", "", "", "g")
	f.Add(`[user.email.substring(1, 3)]`, "", "", "", "")
	f.Add(`user.firstname.replace("", user.firstname).replace("", user.firstname)`, "Ann Lee", "", "", "")
	f.Add(`"%s".format([directoryGroups.map(a, directoryGroups.join(a))])`, "", "", "", "g")
	f.Add(`user.attributeValues.department.filter(d, d != "")`, "", "", "a,b,,c", "")
	f.Add(`user.attributeValues.all(k, user.attributeValues[k].all(v, v in user.attributeValues[k]))`, "", "", "a,b", "")
	f.Fuzz(func(t *testing.T, text, first, country, attr, group string) {
		var progs []*Program
		for _, c := range []Config{{Filter: text}, {Groups: text}, {Set: map[string]string{"firstname": text}}} {
			if p, err := Compile(c); err == nil && p != nil {
				progs = append(progs, p)
			}
		}
		for _, p := range progs {
			r := record(map[string]string{"firstname": first, "country": country}, map[string]string{"department": attr, "displayName": attr, "c": country}, group, strings.ToUpper(group))
			r.Values = map[string][]string{"department": strings.Split(attr, ",")}
			out, err := p.Run(r)
			if err != nil {
				continue
			}
			if !out.Keep && (out.Groups != nil || out.Set != [NumFields]bool{}) {
				t.Fatalf("a rejected record got groups %q or set %v", out.Groups, out.Set)
			}
			checkGroups(t, out.Groups)
			if out.Set[FirstName] && r.Fields[FirstName] != strings.TrimSpace(r.Fields[FirstName]) {
				t.Fatalf("set gave an untrimmed value %q", r.Fields[FirstName])
			}
		}
	})
}

// checkGroups fails unless groups are trimmed, non-empty and distinct
// (case-insensitively), and within MaxGroups.
func checkGroups(t *testing.T, groups []string) {
	t.Helper()
	if len(groups) > MaxGroups {
		t.Fatalf("%d groups, over the limit", len(groups))
	}
	seen := map[string]bool{}
	for _, g := range groups {
		if g == "" || g != strings.TrimSpace(g) || seen[strings.ToLower(g)] {
			t.Fatalf("group %q is empty, untrimmed or repeated in %q", g, groups)
		}
		seen[strings.ToLower(g)] = true
	}
}
