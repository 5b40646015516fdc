package all_test

import (
	"errors"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/source/diag"
)

// TestKindsKeepTheContract checks every registered kind against what the
// configuration loader relies on: a fresh block each time, an empty block
// refused by Validate and by Open with every problem, the files, secrets
// and extra attributes it names being fields of its own block, under the
// YAML keys it gives, and every secret of the block named.
func TestKindsKeepTheContract(t *testing.T) {
	t.Parallel()
	kinds := all.Kinds()
	if len(kinds) == 0 {
		t.Fatal("no source kind registered")
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		if k.Key == "" || k.Key != strings.ToLower(k.Key) || seen[k.Key] {
			t.Errorf("key %q: want a unique lower-case key", k.Key)
		}
		seen[k.Key] = true
		t.Run(k.Key, func(t *testing.T) { checkKind(t, k) })
	}
}

// TestVariantsAreOfferedWhole: every kind has at least one variant for
// init and demo; each has a --source name of its own, a starter part
// holding a source of its kind and mapping rules, and an example of the
// examples folder (embedded, so that the demo runs anywhere).
func TestVariantsAreOfferedWhole(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{"multiorg": true} // the demo's own example
	for _, k := range all.Kinds() {
		if len(k.Variants) == 0 {
			t.Errorf("kind %s has no variant: init and demo would not offer it", k.Key)
		}
		for _, v := range k.Variants {
			if v.Name == "" || v.Name != strings.ToLower(v.Name) || seen[v.Name] {
				t.Errorf("kind %s: variant %q: want a unique lower-case name", k.Key, v.Name)
			}
			seen[v.Name] = true
			if !strings.HasPrefix(v.Starter, "sources:\n") || !strings.Contains(v.Starter, "\n  - "+k.Key+":") || !strings.Contains(v.Starter, "\nmapping:\n") {
				t.Errorf("variant %s: the starter part does not hold a %s source and the mapping rules:\n%s", v.Name, k.Key, v.Starter)
			}
			if _, err := fs.Stat(examples.FS, path.Join(v.Example.Dir, "orgsync.yaml")); err != nil {
				t.Errorf("variant %s: example %q: %v", v.Name, v.Example.Dir, err)
			}
		}
	}
}

func checkKind(t *testing.T, k source.Kind) {
	cfg := k.New()
	if cfg == k.New() {
		t.Error("New returns the same block twice")
	}
	if reflect.TypeOf(cfg).Kind() != reflect.Pointer || reflect.TypeOf(cfg).Elem().Kind() != reflect.Struct {
		t.Fatalf("New returns a %T, want a pointer to a struct", cfg)
	}
	errs := cfg.Validate()
	if len(errs) == 0 {
		t.Error("Validate accepts an empty block")
	}
	src, err := cfg.Open("sources[0]", source.Options{})
	var fe diag.FieldErrors
	if src != nil || !errors.As(err, &fe) || len(fe) != len(errs) {
		t.Errorf("Open of an empty block = %v, %v; want the %d problems of Validate", src, err, len(errs))
	}
	_ = cfg.Label() // must not fail on an empty block
	uses := cfg.Uses()
	for _, p := range uses.Files {
		if _, ok := fieldAt(cfg, p, reflect.TypeOf("")); !ok {
			t.Errorf("Uses.Files names a string outside the block")
		}
	}
	for key, r := range uses.Secrets {
		if path, ok := fieldAt(cfg, r, reflect.TypeOf(secret.Ref{})); !ok || path != key {
			t.Errorf("Uses.Secrets names %q at %q (found: %v), want the key path of a secret.Ref of the block", key, path, ok)
		}
	}
	for _, key := range refKeys(cfg) {
		if _, ok := uses.Secrets[key]; !ok {
			t.Errorf("Uses.Secrets leaves out %s: its file would be neither resolved nor checked", key)
		}
	}
	if key := uses.ExtraAttributesKey; key != "" {
		if ft, ok := typeAt(reflect.TypeOf(cfg).Elem(), key); !ok || ft != reflect.TypeOf([]string(nil)) {
			t.Errorf("ExtraAttributesKey names %q, which is no list of strings of the block", key)
		}
	}
}

// fieldAt returns the YAML key path of the field of type want that p
// points to inside the block cfg points to.
func fieldAt(cfg, p any, want reflect.Type) (found string, ok bool) {
	addr := reflect.ValueOf(p).Pointer()
	visit(reflect.ValueOf(cfg).Elem(), "", func(path string, v reflect.Value) {
		if v.Type() == want && v.Addr().Pointer() == addr {
			found, ok = path, true
		}
	})
	return found, ok
}

// refKeys returns the key paths of every secret.Ref of the block cfg
// points to.
func refKeys(cfg any) []string {
	var keys []string
	visit(reflect.ValueOf(cfg).Elem(), "", func(path string, v reflect.Value) {
		if v.Type() == reflect.TypeOf(secret.Ref{}) {
			keys = append(keys, path)
		}
	})
	return keys
}

// visit calls fn with v, at YAML key path path, and with every exported
// field inside it, at theirs.
func visit(v reflect.Value, path string, fn func(path string, v reflect.Value)) {
	fn(path, v)
	if v.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		name, inline := yamlKey(f)
		sub := path
		if !inline {
			sub = strings.TrimPrefix(path+"."+name, ".")
		}
		visit(v.Field(i), sub, fn)
	}
}

// typeAt returns the type of the field at YAML key path key of struct t.
func typeAt(t reflect.Type, key string) (reflect.Type, bool) {
	head, rest, more := strings.Cut(key, ".")
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, inline := yamlKey(f)
		if inline {
			if ft, ok := typeAt(f.Type, key); ok {
				return ft, true
			}
			continue
		}
		if name != head {
			continue
		}
		if !more {
			return f.Type, true
		}
		return typeAt(f.Type, rest)
	}
	return nil, false
}

// yamlKey returns a field's YAML key and whether it is inlined.
func yamlKey(f reflect.StructField) (string, bool) {
	name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if strings.Contains(opts, "inline") {
		return "", true
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, false
}
