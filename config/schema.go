package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/docs"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
)

// SchemaDraft is the JSON Schema dialect Schema writes.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

var (
	limitType = reflect.TypeOf(Limit{})
	ageType   = reflect.TypeOf(Age(0))
)

// Schema returns the JSON Schema (draft 2020-12) of the configuration
// file, for editors and CI. It is made from what Load uses: the keys and
// their kinds from the types the file is decoded into (the walk of
// strict.go, so unknown keys are refused alike), the defaults Load
// applies, the words validation accepts (choices, and the source kinds'
// source.Chooser), and from the manual's key tables (package docs) each
// key's description, whether it is required, and the defaults Load does
// not set itself (the source kinds apply theirs when they open).
func Schema() ([]byte, error) {
	s, _ := schema()
	return json.MarshalIndent(s, "", "  ")
}

// schema returns the schema and the keys the manual does not describe.
func schema() (map[string]any, []string) {
	g := newSchemaGen()
	root := g.object(docCtx{idx: g.top}, "", reflect.TypeOf(Config{}), fieldsOf(reflect.TypeOf(Config{})))
	root["type"] = "object"
	root["$schema"] = SchemaDraft
	root["title"] = "orgsync configuration (orgsync.yaml)"
	root["description"] = "Written by orgsync schema; see docs/configuration.md. Exactly one of target and targets."
	root["oneOf"] = []any{map[string]any{"required": []string{"target"}}, map[string]any{"required": []string{"targets"}}}
	root["$defs"] = map[string]any{"secret": g.secret(), "duration": durationSchema(), "age": ageSchema(), "limit": limitSchema()}
	sort.Strings(g.undocumented)
	return root, g.undocumented
}

// schemaGen walks the configuration's types.
type schemaGen struct {
	top   *docIndex            // the configuration's keys, by path
	kinds map[string]*docIndex // each source kind's keys, by path inside its block
	// home is the shortest path of each struct type of the configuration:
	// a key reached elsewhere (targets[].orgId) is described, and
	// defaulted, as there (target.orgId).
	home     map[reflect.Type]string
	defaults map[string]reflect.Value // Load's defaults, by path
	// undocumented are the keys the manual does not describe.
	undocumented []string
}

// docCtx is where the keys being walked are described: the index and the
// path its paths are relative to; chooser is the source kind's words.
type docCtx struct {
	idx     *docIndex
	base    string
	chooser map[string]source.Choice
}

func newSchemaGen() *schemaGen {
	g := &schemaGen{top: &docIndex{}, kinds: map[string]*docIndex{}, defaults: map[string]reflect.Value{}}
	g.readDocs()
	g.home = homes(reflect.TypeOf(Config{}))
	d := &Config{Notify: Notify{Email: &Email{}, Webhooks: []Webhook{{}}}}
	d.presetDefaults()
	d.applyDefaults()
	collectDefaults(g.defaults, "", reflect.ValueOf(d).Elem())
	return g
}

// readDocs indexes the manual's key tables: those of configuration.md
// name the configuration's keys; those of sources.md under a heading or a
// line that names a source kind's package (`source/ldap`) or key (`csv:`)
// name that kind's keys, and one that names a top-level key (`mapping:`)
// the keys under it.
func (g *schemaGen) readDocs() {
	for _, t := range parseDoc("configuration.md") {
		g.top.add("", t.Keys)
	}
	topKeys := fieldsOf(reflect.TypeOf(Config{}))
	for _, t := range parseDoc("sources.md") {
		for _, k := range all.Kinds() {
			pkg := reflect.TypeOf(k.New()).Elem().PkgPath()
			for _, tag := range t.Tags {
				if strings.HasSuffix(pkg, "/"+tag) || tag == k.Key+":" {
					if g.kinds[k.Key] == nil {
						g.kinds[k.Key] = &docIndex{}
					}
					g.kinds[k.Key].add("", t.Keys)
				}
			}
		}
		for _, f := range topKeys {
			for _, tag := range t.Tags {
				if tag == f.key+":" {
					g.top.add(f.key+itemSuffix(f.typ)+".", t.Keys)
				}
			}
		}
	}
}

// parseDoc returns the key tables of a page of the manual.
func parseDoc(name string) []keyTable {
	data, err := docs.KeyTables.ReadFile(name)
	if err != nil {
		return nil // embedded: cannot fail
	}
	return parseKeyTables(string(data))
}

// itemSuffix is "[]" for a list type, for paths.
func itemSuffix(t reflect.Type) string {
	if t.Kind() == reflect.Slice {
		return "[]"
	}
	return ""
}

// docIndex finds the documented keys by path.
type docIndex struct {
	keys     map[string]docKey
	prefixes []docKey
}

// add indexes keys, their paths under prefix.
func (d *docIndex) add(prefix string, keys []docKey) {
	if d.keys == nil {
		d.keys = map[string]docKey{}
	}
	for _, k := range keys {
		k.Path = prefix + k.Path
		if k.Prefix {
			d.prefixes = append(d.prefixes, k)
		} else if _, dup := d.keys[k.Path]; !dup {
			d.keys[k.Path] = k
		}
	}
}

// lookup returns the documented key path (exactly, or by a row naming
// every key that starts so).
func (d *docIndex) lookup(path string) (docKey, bool) {
	if d == nil {
		return docKey{}, false
	}
	if k, ok := d.keys[path]; ok {
		return k, true
	}
	for _, k := range d.prefixes {
		if strings.HasPrefix(path, k.Path) {
			return k, true
		}
	}
	return docKey{}, false
}

// object returns the schema of a mapping with the keys fields, found at
// path of struct type t.
func (g *schemaGen) object(ctx docCtx, path string, t reflect.Type, fields []field) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		p := join(path, f.key)
		s := g.value(ctx, p, f.typ)
		doc, ok := g.describe(ctx, p, f)
		if ok {
			s["description"] = doc.Meaning
			if doc.Required {
				required = append(required, f.key)
			}
		} else if !isSection(f.typ) {
			g.undocumented = append(g.undocumented, p)
		}
		if def, ok := g.defaultOf(ctx, p, f, doc.Default); ok {
			s["default"] = def
		}
		if c, ok := g.choice(ctx, p, f); ok {
			withChoice(s, c)
		}
		props[f.key] = s
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// isSection reports whether a key of type t holds keys of its own (a
// section, or a list of them): the manual describes such a key by its
// heading, and its keys in its tables.
func isSection(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != limitType && t != secretRefType && t != sourceType
}

// describe returns the manual's row for the key f at path: its own, or
// that of the same key where its struct type is at home.
func (g *schemaGen) describe(ctx docCtx, path string, f field) (docKey, bool) {
	rel := strings.TrimPrefix(path, ctx.base)
	if k, ok := ctx.idx.lookup(rel); ok {
		return k, true
	}
	if f.typ.Kind() == reflect.Map { // described by its keys' row (set.<field>)
		if k, ok := ctx.idx.lookup(rel + ".*"); ok {
			return k, true
		}
	}
	if home, ok := g.home[f.owner]; ok && ctx.idx == g.top {
		return g.top.lookup(join(home, f.key))
	}
	return docKey{}, false
}

// defaultOf returns the default of key f at path as JSON: the one Load
// applies, else the one the manual gives (documented, a YAML value).
func (g *schemaGen) defaultOf(ctx docCtx, path string, f field, documented string) (any, bool) {
	v, ok := g.defaults[path]
	if home, at := g.home[f.owner]; !ok && at && ctx.idx == g.top {
		v, ok = g.defaults[join(home, f.key)]
	}
	if ok {
		return jsonDefault(v)
	}
	if documented == "" {
		return nil, false
	}
	return decodeDefault(documented, f.typ)
}

// choice returns the words key f at path takes.
func (g *schemaGen) choice(ctx docCtx, path string, f field) (source.Choice, bool) {
	if c, ok := choices[f.owner][f.key]; ok {
		return c, true
	}
	c, ok := ctx.chooser[strings.TrimPrefix(path, ctx.base)]
	return c, ok
}

// value returns the schema of a value of type t at path.
func (g *schemaGen) value(ctx docCtx, path string, t reflect.Type) map[string]any {
	switch {
	case t == secretRefType:
		return map[string]any{"$ref": "#/$defs/secret"}
	case t == durationType:
		return map[string]any{"$ref": "#/$defs/duration"}
	case t == limitType:
		return map[string]any{"$ref": "#/$defs/limit"}
	case t == ageType:
		return map[string]any{"$ref": "#/$defs/age"}
	case t == sourceType:
		return g.source(path)
	case reflect.PointerTo(t).Implements(unmarshalerType):
		// A type that reads itself needs its own schema here.
		g.undocumented = append(g.undocumented, fmt.Sprintf("%s (its type %s has no schema)", path, t))
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.value(ctx, path, t.Elem())
	case reflect.Struct:
		return g.object(ctx, path, t, fieldsOf(t))
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.value(ctx, path+"[]", t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.value(ctx, path+".*", t.Elem())}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{"type": "string"}
}

// source returns the schema of an entry of the sources list: its name and
// expressions, and exactly one kind's block, each kind's keys described by
// its own tables.
func (g *schemaGen) source(path string) map[string]any {
	s := g.object(docCtx{idx: g.top}, path, sourceType, fieldsOf(sourceType))
	props := s["properties"].(map[string]any)
	var oneOf []any
	for _, k := range all.Kinds() {
		cfg := k.New()
		t := reflect.TypeOf(cfg).Elem()
		p := join(path, k.Key)
		ctx := docCtx{idx: g.kinds[k.Key], base: p + "."}
		if c, ok := cfg.(source.Chooser); ok {
			ctx.chooser = c.Choices()
		}
		block := g.object(ctx, p, t, fieldsOf(t))
		if doc, ok := g.top.lookup(p); ok {
			block["description"] = doc.Meaning
		} else {
			g.undocumented = append(g.undocumented, p)
		}
		props[k.Key] = block
		oneOf = append(oneOf, map[string]any{"required": []string{k.Key}})
	}
	s["oneOf"] = oneOf
	return s
}

// secret is the schema of a secret reference: {env: VARIABLE},
// {file: PATH}, {exec: [program, arguments...], timeout: 30s} or
// {wincred: TARGET, user: USER}.
func (g *schemaGen) secret() map[string]any {
	ctx := docCtx{idx: g.top}
	s := g.object(ctx, "*", secretRefType, fieldsOf(secretRefType))
	s["description"] = "a secret reference, never the secret itself: {env: VARIABLE}, {file: /path}, {exec: [program, arguments...]} or {wincred: TARGET} (Windows)"
	s["oneOf"] = []any{
		map[string]any{"required": []string{"env"}},
		map[string]any{"required": []string{"file"}},
		map[string]any{"required": []string{"exec"}},
		map[string]any{"required": []string{"wincred"}},
	}
	s["dependentRequired"] = map[string]any{"timeout": []string{"exec"}, "user": []string{"wincred"}}
	props := s["properties"].(map[string]any)
	props["exec"].(map[string]any)["minItems"] = 1
	return s
}

// durationSchema is a Go duration (time.ParseDuration): 30s, 5m, 1h30m.
func durationSchema() map[string]any {
	return map[string]any{
		"type":        "string",
		"pattern":     `^[+-]?(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`,
		"description": "a duration: a number and a unit (ns, us, ms, s, m, h), several in a row allowed: 30s, 5m, 1h30m",
	}
}

// ageSchema is an Age: a duration, or days (90d).
func ageSchema() map[string]any {
	return map[string]any{
		"type":        "string",
		"pattern":     `^([0-9]+d|(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`,
		"description": "a duration (90m, 24h, 2160h) or days (90d)",
	}
}

// limitSchema is a Limit: a count or a percentage from 1% to 100%.
func limitSchema() map[string]any {
	return map[string]any{
		"description": `a count (50; 0: no limit) or a percentage ("10%"; "0%" is refused)`,
		"anyOf": []any{
			map[string]any{"type": "integer", "minimum": 0},
			map[string]any{"type": "string", "pattern": `^\s*([0-9]+|0*([1-9][0-9]?|100)\s*%)\s*$`},
		},
	}
}

// withChoice restricts s (or its items, for a list) to the words of c.
func withChoice(s map[string]any, c source.Choice) {
	if items, ok := s["items"].(map[string]any); ok {
		s = items
	}
	if !c.AnyCase {
		s["enum"] = c.Words
		return
	}
	// Editors complete the words as written; any letter case is accepted.
	s["anyOf"] = []any{map[string]any{"enum": c.Words}, map[string]any{"pattern": anyCasePattern(c.Words)}}
}

// anyCasePattern is a regular expression matching each of words in any
// letter case, written with character classes (ECMA-262 has no (?i)).
func anyCasePattern(words []string) string {
	alts := make([]string, len(words))
	for i, w := range words {
		var b strings.Builder
		for _, r := range w {
			lo, up := unicode.ToLower(r), unicode.ToUpper(r)
			switch {
			case lo != up:
				fmt.Fprintf(&b, "[%c%c]", lo, up)
			case strings.ContainsRune(`\^$.|?*+()[]{}-`, r):
				b.WriteString(`\` + string(r))
			default:
				b.WriteRune(r)
			}
		}
		alts[i] = b.String()
	}
	return "^(" + strings.Join(alts, "|") + ")$"
}

// homes returns the shortest path of every struct type of the
// configuration below t (the source kinds' own types aside).
func homes(t reflect.Type) map[reflect.Type]string {
	out := map[reflect.Type]string{}
	type item struct {
		path string
		t    reflect.Type
	}
	queue := []item{{"", t}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		for it.t.Kind() == reflect.Pointer || it.t.Kind() == reflect.Slice || it.t.Kind() == reflect.Map {
			if it.t.Kind() != reflect.Pointer {
				it.path += itemSuffix(it.t)
			}
			it.t = it.t.Elem()
		}
		if it.t.Kind() != reflect.Struct || it.t == limitType || it.t == secretRefType {
			continue
		}
		if _, seen := out[it.t]; seen {
			continue
		}
		out[it.t] = it.path
		if it.t == sourceType {
			continue
		}
		for _, f := range fieldsOf(it.t) {
			if f.owner != it.t { // inline: the owner is at home here too
				if _, seen := out[f.owner]; !seen {
					out[f.owner] = it.path
				}
			}
			queue = append(queue, item{join(it.path, f.key), f.typ})
		}
	}
	return out
}

// collectDefaults records, by path, every value under v (a defaulted
// configuration at path) that is a default: set (not zero), or a boolean.
// A list's first item stands for every item.
func collectDefaults(out map[string]reflect.Value, path string, v reflect.Value) {
	t := v.Type()
	switch {
	case t == limitType || t == secretRefType:
	case t.Kind() == reflect.Pointer:
		if !v.IsNil() {
			collectDefaults(out, path, v.Elem())
		}
		return
	case t.Kind() == reflect.Struct:
		for _, f := range fieldsOf(t) {
			collectDefaults(out, join(path, f.key), fieldValue(v, f.key))
		}
		return
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		if v.Len() > 0 {
			collectDefaults(out, path+"[]", v.Index(0))
		}
		return
	}
	if !v.IsZero() || t.Kind() == reflect.Bool {
		out[path] = v
	}
}

// fieldValue returns the field of struct value v whose YAML key is key.
func fieldValue(v reflect.Value, key string) reflect.Value {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			if fv := fieldValue(v.Field(i), key); fv.IsValid() {
				return fv
			}
			continue
		}
		if name == key || name == "" && strings.ToLower(f.Name) == key {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

// jsonDefault returns a default value as the JSON the file would hold:
// durations and limits as written ("1m", "10%").
func jsonDefault(v reflect.Value) (any, bool) {
	switch v.Type() {
	case durationType:
		return shortDuration(time.Duration(v.Int())), true
	case ageType:
		if d := time.Duration(v.Int()); d%(24*time.Hour) == 0 {
			return fmt.Sprintf("%dd", d/(24*time.Hour)), true
		}
		return shortDuration(time.Duration(v.Int())), true
	case limitType:
		return v.Interface().(Limit).String(), true
	}
	return v.Interface(), true
}

// decodeDefault reads a default the manual gives for a key of type t.
func decodeDefault(text string, t reflect.Type) (any, bool) {
	base := t
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() == reflect.String {
		return text, true
	}
	p := reflect.New(t)
	if err := yaml.Unmarshal([]byte(text), p.Interface()); err != nil {
		return nil, false
	}
	v := p.Elem()
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return jsonDefault(v)
}

// shortDuration writes d as a person would: 1m, 2160h, 1h30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
