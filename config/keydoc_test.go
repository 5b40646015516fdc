package config

import (
	"reflect"
	"testing"
)

func TestParseKeyTables(t *testing.T) {
	t.Parallel()
	doc := "# Sources\n\n## CSV (`source/csvfile`)\n\n" +
		"| key | default | meaning |\n|---|---|---|\n" +
		"| `target.retries.minWait` / `maxWait` | `1s` / `1m` | back-off **bounds** ([more](x.md)) |\n" +
		"| `notify.webhooks[].url`, `.format` | none, `json` | webhooks |\n" +
		"| `users.default…` | as for Entra ID | defaults |\n" +
		"| `path` | — (required) | the file |\n" +
		"| `filter` | `(\\|(a=b)(c=d))` | a filter |\n" +
		"| `columns.email` | | see above |\n\n" +
		"Keys shared by `csv:` and `yaml:`:\n\n| key | meaning |\n|---|---|\n| `sources[i].set.<field>` | computed |\n\n" +
		"| store | `exec:` |\n|---|---|\n| `vault` | x |\n"
	got := parseKeyTables(doc)
	want := []keyTable{
		{Tags: []string{"source/csvfile"}, Keys: []docKey{
			{Path: "target.retries.minWait", Default: "1s", Meaning: "back-off bounds (more)"},
			{Path: "target.retries.maxWait", Default: "1m", Meaning: "back-off bounds (more)"},
			{Path: "notify.webhooks[].url", Meaning: "webhooks"},
			{Path: "notify.webhooks[].format", Default: "json", Meaning: "webhooks"},
			{Path: "users.default", Prefix: true, Meaning: "defaults"},
			{Path: "path", Required: true, Meaning: "the file"},
			{Path: "filter", Default: "(|(a=b)(c=d))", Meaning: "a filter"},
		}},
		{Tags: []string{"source/csvfile", "csv:", "yaml:"}, Keys: []docKey{{Path: "sources[].set.*", Meaning: "computed"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseKeyTables:\n got %+v\nwant %+v", got, want)
	}
}
