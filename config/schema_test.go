package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
)

// compiledSchema compiles Schema with a conformant draft 2020-12 validator.
func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("orgsync.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("orgsync.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// asJSON reads a YAML document (aliases and merge keys resolved, as an
// editor's YAML language server does) as the JSON value it stands for.
func asJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// exampleConfigs returns every example configuration of the repository.
func exampleConfigs(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "examples"), func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "orgsync.yaml" {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 8 {
		t.Fatalf("example configurations: %v (%d found)", err, len(files))
	}
	return files
}

// TestExamplesValidateAgainstTheSchema: every example configuration is
// valid for the schema, and starts with the modeline that points editors
// at the schema file, which is the schema orgsync schema prints.
func TestExamplesValidateAgainstTheSchema(t *testing.T) {
	t.Parallel()
	s := compiledSchema(t)
	want, _ := Schema()
	schemaFile := filepath.Join("..", "examples", "orgsync.schema.json")
	got, err := os.ReadFile(schemaFile)
	if err != nil || !bytes.Equal(bytes.TrimSpace(got), want) {
		t.Errorf("%s is not what orgsync schema prints: run go run ./cmd/orgsync schema > examples/orgsync.schema.json (%v)", schemaFile, err)
	}
	for _, file := range exampleConfigs(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(asJSON(t, data)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		ref, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
		if !ok {
			t.Errorf("%s: the first line is %q, want the yaml-language-server modeline", file, first)
			continue
		}
		if abs, _ := filepath.Abs(filepath.Join(filepath.Dir(file), ref)); abs != must(filepath.Abs(schemaFile)) {
			t.Errorf("%s: the modeline names %s, not the schema file", file, ref)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// baseConfig is a valid configuration that the broken ones below change.
const baseConfig = `
target:
  orgId: 1234ABCD@VendorOrg
  baseURL: https://um.test.example
  auth:
    method: oauth
    clientId: orgsync-test
    clientSecret: {env: ORGSYNC_SCHEMA_TEST_SECRET}
sources:
  - csv: {path: users.csv}
mapping:
  - {directory: design, targets: [Design]}
`

// TestBrokenConfigurationsRefusedByBoth: each configuration is refused by
// the schema and by Load, and the base they change is accepted by both.
func TestBrokenConfigurationsRefusedByBoth(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("ORGSYNC_SCHEMA_TEST_SECRET", "x")
	s := compiledSchema(t)
	dir := t.TempDir()
	check := func(name, doc string, valid bool) {
		t.Helper()
		schemaErr := s.Validate(asJSON(t, []byte(doc)))
		_, loadErr := Parse([]byte(doc), filepath.Join(dir, "orgsync.yaml"))
		if valid && (schemaErr != nil || loadErr != nil) {
			t.Errorf("%s: want it accepted; schema: %v; load: %v", name, schemaErr, loadErr)
		}
		if !valid && (schemaErr == nil || loadErr == nil) {
			t.Errorf("%s: want it refused by both; schema: %v; load: %v", name, schemaErr, loadErr)
		}
	}
	check("base", baseConfig, true)
	broken := []struct{ name, old, new string }{
		{"unknown top-level key", "mapping:", "colour: red\nmapping:"},
		{"misspelt nested key", "clientId:", "clientID:"},
		{"unknown key in a source kind", "{path: users.csv}", "{path: users.csv, delimeter: ';'}"},
		{"secret written inline", "clientSecret: {env: ORGSYNC_SCHEMA_TEST_SECRET}", "clientSecret: hunter2"},
		{"secret with two places", "{env: ORGSYNC_SCHEMA_TEST_SECRET}", "{env: ORGSYNC_SCHEMA_TEST_SECRET, file: /x}"},
		{"secret timeout without exec", "{env: ORGSYNC_SCHEMA_TEST_SECRET}", "{env: ORGSYNC_SCHEMA_TEST_SECRET, timeout: 5s}"},
		{"word not allowed", "method: oauth", "method: saml"},
		{"list item not allowed", "mapping:", "policy: {updateAttributes: [firstname, country]}\nmapping:"},
		{"identity type", "mapping:", "policy: {exclude: {identityTypes: [adobeID]}}\nmapping:"},
		{"duration written in words", "mapping:", "state: {retention: 90 days}\nmapping:"},
		{"number for a duration", "mapping:", "state: {retention: 90}\nmapping:"},
		{"limit 0%", "mapping:", "safety: {maxRemovals: 0%}\nmapping:"},
		{"limit over 100%", "mapping:", "safety: {maxRemovals: 150%}\nmapping:"},
		{"text for a number", "mapping:", "logging: {maxBackups: many}\nmapping:"},
		{"text for true or false", "mapping:", "schedule: {runAtStart: sometimes}\nmapping:"},
		{"list for a mapping", "mapping:", "scope: [a]\nmapping:"},
		{"two kinds in one source", "- csv: {path: users.csv}", "- csv: {path: users.csv}\n    yaml: {path: users.yaml}"},
		{"a source of no kind", "- csv: {path: users.csv}", "- name: nothing"},
		{"both target and targets", "sources:", "targets: [{name: b, orgId: 5678ABCD@VendorOrg, baseURL: https://um.test.example, auth: {method: oauth, clientId: b, clientSecret: {env: ORGSYNC_SCHEMA_TEST_SECRET}}}]\nsources:"},
		{"required key missing", "    clientId: orgsync-test\n", ""},
		{"required kind key missing", "{path: users.csv}", "{delimiter: ';'}"},
		{"unknown LDAP membership mode", "- csv: {path: users.csv}", "- ldap: {url: ldaps://dir.test.example, users: {baseDN: 'dc=example'}, groups: {membership: [memberof]}}"},
		{"unknown Okta status", "- csv: {path: users.csv}", "- okta: {orgURL: https://x.okta.com, apiToken: {env: ORGSYNC_SCHEMA_TEST_SECRET}, users: {statuses: [GONE]}}"},
	}
	for _, b := range broken {
		if !strings.Contains(baseConfig, b.old) {
			t.Fatalf("%s: the base has no %q", b.name, b.old)
		}
		check(b.name, strings.Replace(baseConfig, b.old, b.new, 1), false)
	}
}

// schemaKeys returns the key paths of a schema's mappings ("target.auth",
// "sources[].ldap.users.baseDN").
func schemaKeys(s map[string]any, path string, defs map[string]any, out map[string]bool) {
	if ref, ok := s["$ref"].(string); ok {
		s = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	if items, ok := s["items"].(map[string]any); ok {
		schemaKeys(items, path+"[]", defs, out)
	}
	if more, ok := s["additionalProperties"].(map[string]any); ok {
		schemaKeys(more, path+".*", defs, out)
	}
	props, _ := s["properties"].(map[string]any)
	for k, v := range props {
		p := join(path, k)
		out[p] = true
		schemaKeys(v.(map[string]any), p, defs, out)
	}
}

// loaderKeys returns the key paths the loader's walk accepts, from the
// types it checks a file against (yamlFields, the source kinds included).
func loaderKeys(t reflect.Type, path string, out map[string]bool) {
	if t == durationType || t == limitType || t == ageType {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		loaderKeys(t.Elem(), path, out)
	case reflect.Slice:
		loaderKeys(t.Elem(), path+"[]", out)
	case reflect.Map:
		loaderKeys(t.Elem(), path+".*", out)
	case reflect.Struct:
		for k, ft := range yamlFields(t) {
			p := join(path, k)
			out[p] = true
			loaderKeys(ft, p, out)
		}
	}
}

// TestSchemaHasTheLoadersKeys: the schema has every key the loader
// accepts and no other, each key the schema has passes the loader's walk
// with a value of the schema's type, and every key but a section is
// described by the manual.
func TestSchemaHasTheLoadersKeys(t *testing.T) {
	t.Parallel()
	s, undocumented := schema()
	if len(undocumented) > 0 {
		t.Errorf("keys the manual's key tables do not describe (add a row to docs/configuration.md or docs/sources.md): %s", strings.Join(undocumented, ", "))
	}
	inSchema, inLoader := map[string]bool{}, map[string]bool{}
	schemaKeys(s, "", s["$defs"].(map[string]any), inSchema)
	loaderKeys(reflect.TypeOf(Config{}), "", inLoader)
	for k := range inLoader {
		if !inSchema[k] {
			t.Errorf("the loader accepts %s, the schema does not have it", k)
		}
	}
	for k := range inSchema {
		if !inLoader[k] {
			t.Errorf("the schema has %s, the loader does not accept it", k)
		}
	}
	// Each key, set alone with a value of the schema's type, passes the walk.
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range inSchema {
			if !yield(k) {
				return
			}
		}
	}) {
		doc := nestAt(k, sampleOf(schemaAt(s, k, s["$defs"].(map[string]any)), s["$defs"].(map[string]any)))
		data, _ := yaml.Marshal(doc)
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			t.Fatal(err)
		}
		w := newWalker()
		w.walk("", n.Content[0], reflect.TypeOf(Config{}))
		if len(w.problems) > 0 {
			t.Errorf("%s: the loader's walk refuses the schema's value:\n%s%v", k, data, w.problems)
		}
	}
}

// schemaAt returns the schema of key path p in the schema root.
func schemaAt(root map[string]any, p string, defs map[string]any) map[string]any {
	deref := func(s map[string]any) map[string]any {
		if ref, ok := s["$ref"].(string); ok {
			return defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		return s
	}
	s := root
	for _, part := range strings.Split(p, ".") {
		name, items := strings.CutSuffix(part, "[]")
		if name == "*" {
			s = deref(s["additionalProperties"].(map[string]any))
		} else {
			s = deref(s["properties"].(map[string]any)[name].(map[string]any))
		}
		if items {
			s = deref(s["items"].(map[string]any))
		}
	}
	return s
}

// sampleOf returns a value the schema s accepts, as YAML would hold it.
func sampleOf(s map[string]any, defs map[string]any) any {
	if def, ok := s["default"]; ok {
		return def
	}
	if enum, ok := s["enum"].([]string); ok {
		return enum[0]
	}
	if items, ok := s["items"].(map[string]any); ok {
		return []any{sampleOf(items, defs)}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		return sampleOf(alts[0].(map[string]any), defs)
	}
	switch s["type"] {
	case "object":
		return map[string]any{}
	case "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	}
	if _, ok := s["pattern"]; ok { // a duration
		return "1s"
	}
	if _, ok := s["oneOf"]; ok { // a secret
		return map[string]any{"env": "X"}
	}
	return "x"
}

// nestAt returns a document with value v at key path p.
func nestAt(p string, v any) any {
	parts := strings.Split(p, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		name, items := strings.CutSuffix(parts[i], "[]")
		if items {
			v = map[string]any{name: []any{v}}
		} else {
			v = map[string]any{name: v}
		}
	}
	return v
}

// TestChoicesAreWhatValidationAccepts: every word the schema lists for a
// key is accepted there by Load (the configuration's keys) or by the kind's
// Validate (a source kind's), and a word not listed is refused.
func TestChoicesAreWhatValidationAccepts(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("ORGSYNC_SCHEMA_TEST_SECRET", "x")
	dir := t.TempDir()
	keys := map[string]string{ // where each configuration key with words is set in baseConfig
		"Safety.onLimit":          "safety: {onLimit: %s}",
		"Policy.unmatchedUsers":   "policy: {unmatchedUsers: %s}",
		"Policy.updateAttributes": "policy: {updateAttributes: [%s]}",
		"Exclude.identityTypes":   "policy: {exclude: {identityTypes: [%s]}}",
		"Logging.level":           "logging: {level: %s}",
		"Logging.format":          "logging: {format: %s}",
		"Auth.method":             "target: {auth: {method: %s}}",
		"NamedTarget.members":     "targets: [{members: %s}]",
		"Webhook.format":          "notify: {webhooks: [{url: {env: ORGSYNC_SCHEMA_TEST_SECRET}, format: %s}]}",
		"Email.tls":               "notify: {email: {host: smtp.test.example, from: a@example.com, to: [b@example.com], tls: %s}}",
		"Defaults.defaultType":    "sources: [{csv: {path: users.csv, defaultType: %s}}]",
	}
	for typ, byKey := range choices {
		for key, c := range byKey {
			id := typ.Name() + "." + key
			form, ok := keys[id]
			if !ok {
				t.Errorf("%s: no test configuration sets it", id)
				continue
			}
			for _, w := range append(c.Words, "not-a-word") {
				_, err := Parse([]byte(withKey(form, w)), filepath.Join(dir, "orgsync.yaml"))
				if refused := problemAt(err, key); refused != (w == "not-a-word") {
					t.Errorf("%s: %q: refused %v (%v)", id, w, refused, err)
				}
			}
		}
	}
	for _, k := range all.Kinds() {
		chooser, ok := k.New().(source.Chooser)
		if !ok {
			continue
		}
		for key, c := range chooser.Choices() {
			for _, w := range append(c.Words, "not-a-word") {
				cfg := k.New()
				block, _ := yaml.Marshal(nestAt(key, w))
				if slices.Contains([]string{"groups.membership", "users.statuses", "groups.types"}, key) {
					block, _ = yaml.Marshal(nestAt(key, []string{w}))
				}
				if err := yaml.Unmarshal(block, cfg); err != nil {
					t.Fatal(err)
				}
				refused := false
				for _, e := range cfg.Validate() {
					refused = refused || e.Field == key || strings.HasPrefix(e.Field, key+"[")
				}
				if refused != (w == "not-a-word") {
					t.Errorf("%s %s: %q: refused %v", k.Key, key, w, refused)
				}
			}
		}
	}
}

// withKey sets one key (form, with %s for the word) over baseConfig: the
// sections it names replace the base's.
func withKey(form, word string) string {
	var base, over map[string]any
	_ = yaml.Unmarshal([]byte(baseConfig), &base)
	_ = yaml.Unmarshal([]byte(strings.ReplaceAll(form, "%s", yamlWord(word))), &over)
	merge(base, over)
	if targets, ok := over["targets"]; ok { // a target of a list: the base's, named
		t := base["target"].(map[string]any)
		t["name"] = "main"
		maps := targets.([]any)[0].(map[string]any)
		merge(t, maps)
		base["targets"] = []any{t}
		delete(base, "target")
	}
	out, _ := yaml.Marshal(base)
	return string(out)
}

// yamlWord quotes a word for a flow value.
func yamlWord(w string) string {
	out, _ := json.Marshal(w)
	return string(out)
}

// merge sets over's values into base, mapping by mapping.
func merge(base, over map[string]any) {
	for k, v := range over {
		if bm, ok := base[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				merge(bm, om)
				continue
			}
		}
		base[k] = v
	}
}

// problemAt reports whether err holds a problem of key (by the path's
// last key).
func problemAt(err error, key string) bool {
	var cerr *Error
	if !errors.As(err, &cerr) {
		return false
	}
	for _, p := range cerr.Problems {
		if strings.HasSuffix(p.Path, "."+key) || strings.Contains(p.Path, "."+key+"[") {
			return true
		}
	}
	return false
}

// TestDocumentedDefaultsAreTheLoaders: where the manual gives a default
// of a configuration key and Load applies one, they are the same.
func TestDocumentedDefaultsAreTheLoaders(t *testing.T) {
	t.Parallel()
	g := newSchemaGen()
	checked := 0
	for _, path := range slices.Sorted(func(yield func(string) bool) {
		for p := range g.defaults {
			if !yield(p) {
				return
			}
		}
	}) {
		doc, ok := g.top.lookup(path)
		if !ok || doc.Default == "" {
			continue
		}
		v := g.defaults[path]
		got, _ := jsonDefault(v)
		want, ok := decodeDefault(doc.Default, v.Type())
		if !ok || !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(want)) {
			t.Errorf("%s: the manual says %q, Load applies %v", path, doc.Default, got)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d defaults compared", checked)
	}
}

// normalizeJSON returns v as JSON would read it back.
func normalizeJSON(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	if list, ok := out.([]any); ok {
		sort.Slice(list, func(i, j int) bool { return list[i].(string) < list[j].(string) })
	}
	return out
}
