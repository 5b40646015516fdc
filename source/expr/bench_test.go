package expr

import "testing"

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
