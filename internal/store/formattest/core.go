package formattest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// corePackages are the packages whose types are the core's: a format
// holds none of them but through a codec of its own (a json.Marshaler
// defined outside them, such as planjson.Changes).
var corePackages = []string{"github.com/orgsync/orgsync/reconcile", "github.com/orgsync/orgsync/internal/run", "github.com/orgsync/orgsync/config"}

// NoCoreTypes fails the test when what the JSON of v is made of (its
// fields, elements and map keys, followed down to the types that encode
// themselves) includes a type of the core: then a change to the core
// would change the format.
func NoCoreTypes(t testing.TB, v any) {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		for _, p := range corePackages {
			if pkg := typ.PkgPath(); pkg == p || strings.HasPrefix(pkg, p+"/") {
				t.Errorf("%s is %s, a type of the core: the format would change with it", path, typ)
				return
			}
		}
		if typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
			return // encodes itself, in its package's words
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem(), path+"[]")
		case reflect.Map:
			walk(typ.Key(), path+"{key}")
			walk(typ.Elem(), path+"{}")
		case reflect.Struct:
			for i := range typ.NumField() {
				f := typ.Field(i)
				if !f.IsExported() && !f.Anonymous || f.Tag.Get("json") == "-" {
					continue
				}
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(reflect.TypeOf(v), reflect.TypeOf(v).String())
}

var marshaler = reflect.TypeFor[json.Marshaler]()
