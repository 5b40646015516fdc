package all_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/all"
)

// TestLocalFilesAreTheBlocks: a kind that says it reads a local file
// (source.ReadsLocalFile) names the file under the key it gives, a file of
// its Uses; an extension is lower case with its dot, and one kind's only:
// the commands that read sources without the network (orgsync test,
// migrate's check) take a file's kind from it. The file kinds are there.
func TestLocalFilesAreTheBlocks(t *testing.T) {
	t.Parallel()
	kinds := all.Kinds()
	owner := map[string]string{}
	for _, k := range kinds {
		f, ok := k.LocalFile()
		if !ok {
			continue
		}
		cfg := k.New()
		named := false
		for _, p := range cfg.Uses().Files {
			if path, ok := fieldAt(cfg, p, reflect.TypeOf("")); ok && path == f.Key {
				named = true
			}
		}
		if !named {
			t.Errorf("kind %s: its file's key %q is no file its Uses names", k.Key, f.Key)
		}
		if len(f.Extensions) == 0 {
			t.Errorf("kind %s reads a local file of no extension", k.Key)
		}
		for _, e := range f.Extensions {
			if !strings.HasPrefix(e, ".") || e != strings.ToLower(e) || owner[e] != "" {
				t.Errorf("kind %s: extension %q: want it lower case, with its dot, and no other kind's (%s)", k.Key, e, owner[e])
			}
			owner[e] = k.Key
			if got, _, ok := kinds.ForFile("users" + strings.ToUpper(e)); !ok || got.Key != k.Key {
				t.Errorf("ForFile(users%s) = %s, %v; want %s", strings.ToUpper(e), got.Key, ok, k.Key)
			}
		}
	}
	if owner[".csv"] != "csv" || owner[".yaml"] != "yaml" {
		t.Errorf("the file kinds: %v", owner)
	}
	if _, _, ok := kinds.ForFile("users.txt"); ok {
		t.Error("ForFile found a kind for a .txt file")
	}
}
