package expr

import (
	"strings"
	"testing"
)

// TestCheckAttributes: an attribute an expression reads outright must be
// one the source has; one it tests for first (has, in, ?.) need not be.
func TestCheckAttributes(t *testing.T) {
	t.Parallel()
	have := []string{"department", "displayName"}
	tests := []struct {
		cfg  Config
		want string // "" when fine
	}{
		{Config{Filter: `user.attributes.department != "Sales"`}, ""},
		{Config{Filter: `user.attributes.departement != "Sales"`},
			"filter reads user.attributes.departement, but the file has no such column (its columns of no user field: department, displayName): fix the name or add the column"},
		{Config{Groups: `[user.attributes["Title"]]`}, "groups reads user.attributes.Title"},
		{Config{Set: map[string]string{"country": `user.attributes.c`}}, "set.country reads user.attributes.c"},
		{Config{Set: map[string]string{"country": `has(user.attributes.c) ? user.attributes.c : "US"`}}, ""},
		{Config{Set: map[string]string{"country": `"c" in user.attributes ? user.attributes["c"] : "US"`}}, ""},
		{Config{Set: map[string]string{"country": `user.attributes.?c.orValue("US")`}}, ""},
		{Config{Filter: `user.country != "CN"`, Groups: `directoryGroups.map(g, g + "!")`}, ""},
		{Config{Groups: `user.attributeValues.departement`}, "groups reads user.attributeValues.departement, but the file has no such column"},
		{Config{Groups: `user.attributeValues["department"].map(d, d + "!")`}, ""},
		{Config{Groups: `user.attributeValues.?c.orValue([])`}, ""},
	}
	for _, tt := range tests {
		p, err := Compile(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckAttributes(have)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: CheckAttributes = %v, want %q", tt.cfg, err, tt.want)
		}
	}
	var none *Program
	if none.CheckAttributes(nil) != nil {
		t.Error("no program has no problem")
	}
}
