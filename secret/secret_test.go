package secret

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFromEnvAndFile(t *testing.T) {
	t.Setenv("ORGSYNC_TEST_SECRET", "s3cret-env")
	v, err := Ref{Env: "ORGSYNC_TEST_SECRET"}.Load()
	if err != nil || v.Reveal() != "s3cret-env" {
		t.Fatalf("env: got %q, %v", v.Reveal(), err)
	}
	path := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(path, []byte("s3cret-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err = Ref{File: path}.Load()
	if err != nil || v.Reveal() != "s3cret-file" {
		t.Fatalf("file: got %q, %v", v.Reveal(), err)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := map[string]Ref{
		"empty":   {},
		"both":    {Env: "X", File: "/y"},
		"unset":   {Env: "ORGSYNC_TEST_UNSET_VARIABLE"},
		"no file": {File: filepath.Join(t.TempDir(), "missing")},
	}
	for name, ref := range cases {
		if _, err := ref.Load(); err == nil {
			t.Errorf("%s: Load() = nil error, want one", name)
		}
	}
}

func TestValueIsRedactedEverywhere(t *testing.T) {
	v := Value("hunter2")
	j, _ := json.Marshal(struct{ P Value }{v})
	for _, s := range []string{fmt.Sprint(v), fmt.Sprintf("%v %s %#v %+v", v, v, v, v), string(j)} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("secret leaked in %q", s)
		}
	}
}
