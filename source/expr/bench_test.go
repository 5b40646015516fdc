package expr

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRun is the cost per user of the expressions of the CSV
// benchmark (a filter, a groups and a set expression) over one record.
func BenchmarkRun(b *testing.B) {
	p, err := Compile(Config{
		Filter: `user.country != "CN"`,
		Groups: `user.attributes.department == "Design" ? ["Design"] : []`,
		Set:    map[string]string{"firstname": `user.attributes.displayName.split(" ")[0]`},
	})
	if err != nil {
		b.Fatal(err)
	}
	r := &Record{Attributes: map[string]string{"department": "Design", "displayName": "Given1 Family1"}}
	b.ReportAllocs()
	for b.Loop() {
		r.Fields[Country], r.Fields[FirstName] = "DE", "First1"
		if out, err := p.Run(r); err != nil || len(out.Groups) != 1 {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkLoopOverGroups is the cost of an expression looping over a
// user's directory groups: startsWith, whose cost CEL bounds at load, runs
// uncounted; contains is counted, and CEL's counting grows with the loop.
func BenchmarkLoopOverGroups(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		groups := make([]string, n)
		for i := range groups {
			groups[i] = fmt.Sprintf("cn=group%d,ou=groups,dc=example,dc=com", i)
		}
		for _, f := range []string{`directoryGroups.exists(g, g.startsWith("cn=design"))`, `directoryGroups.exists(g, g.contains("design"))`} {
			b.Run(fmt.Sprintf("%d/%s", n, f[strings.Index(f, "g.")+2:strings.Index(f, "(\"")]), func(b *testing.B) {
				p, err := Compile(Config{Filter: f})
				if err != nil {
					b.Fatal(err)
				}
				r := &Record{DirectoryGroups: groups}
				for b.Loop() {
					if out, err := p.Run(r); err != nil || out.Keep {
						b.Fatal(out, err)
					}
				}
			})
		}
	}
}

// BenchmarkRunValues is the cost per user of expressions over
// user.attributeValues: a filter and a groups expression looking through
// a multi-valued attribute's values, and a set expression over a
// single-valued one's list.
func BenchmarkRunValues(b *testing.B) {
	p, err := Compile(Config{
		Filter: `user.attributeValues.projects.exists(p, p.startsWith("apollo"))`,
		Groups: `"gemini, the sequel" in user.attributeValues.projects ? ["Gemini"] : []`,
		Set:    map[string]string{"firstname": `user.attributeValues.displayName[0].split(" ")[0]`},
	})
	if err != nil {
		b.Fatal(err)
	}
	r := &Record{Attributes: map[string]string{"projects": "apollo,gemini, the sequel,mercury", "displayName": "Given1 Family1"},
		Values: map[string][]string{"projects": {"apollo", "gemini, the sequel", "mercury"}}}
	b.ReportAllocs()
	for b.Loop() {
		r.Fields[FirstName] = "First1"
		if out, err := p.Run(r); err != nil || len(out.Groups) != 1 || !out.Keep {
			b.Fatal(out, err)
		}
	}
}
