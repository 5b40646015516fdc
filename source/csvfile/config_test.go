package csvfile

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/source"
)

// TestConfigYAML checks the YAML keys of Config, as the configuration
// loader decodes them (unknown keys rejected).
func TestConfigYAML(t *testing.T) {
	t.Parallel()
	const block = `
path: users.csv
delimiter: ";"
groupSeparator: "|"
columns: {firstname: Given, lastname: Sur, email: Mail, country: C, groups: G, type: T, username: U, domain: D}
defaultType: enterpriseID
defaultCountry: DE
defaultDomain: example.com
`
	dec := yaml.NewDecoder(strings.NewReader(block))
	dec.KnownFields(true)
	var got Config
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := Config{Path: "users.csv", Delimiter: ";", GroupSeparator: "|",
		Columns:  Columns{"Given", "Sur", "Mail", "C", "G", "T", "U", "D"},
		Defaults: source.Defaults{Type: "enterpriseID", Country: "DE", Domain: "example.com"}}
	if got != want {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	if errs := got.Validate(); len(errs) != 0 {
		t.Fatalf("Validate: %v", errs)
	}
}
