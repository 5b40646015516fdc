package yamlfile

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
	dec := yaml.NewDecoder(strings.NewReader("path: u.yaml\ndefaultType: vendorID\ndefaultCountry: us\ndefaultDomain: example.com\n"))
	dec.KnownFields(true)
	var got Config
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := Config{Path: "u.yaml", Defaults: source.Defaults{Type: "vendorID", Country: "us", Domain: "example.com"}}
	if got != want {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	if errs := got.Validate(); len(errs) != 0 {
		t.Fatalf("Validate: %v", errs)
	}
}
