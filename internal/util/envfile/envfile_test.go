package envfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadEnvFile: the syntax systemd's EnvironmentFile= reads.
func TestReadEnvFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "orgsync.env")
	text := "# the service's secret\n" +
		"ORGSYNC_CLIENT_SECRET=s3cr3t\n" +
		"; another comment\n\n" +
		"  SPACED = padded value  \n" +
		`DOUBLE="a \"quoted\" \\ value"` + "\n" +
		`SINGLE='kept \" as is'` + "\n" +
		"LONG=first \\\nsecond\n" +
		"no equals sign here\n" +
		"EMPTY=\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	want := [][2]string{{"ORGSYNC_CLIENT_SECRET", "s3cr3t"}, {"SPACED", "padded value"}, {"DOUBLE", `a "quoted" \ value`},
		{"SINGLE", `kept \" as is`}, {"LONG", "first second"}, {"EMPTY", ""}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("readEnvFile: %q, %v\nwant %q", got, err, want)
	}
	if err := os.WriteFile(path, []byte("OK=1\nBAD NAME=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path+":2: \"BAD NAME\" is not a variable name") {
		t.Errorf("a bad name: %v", err)
	}
}
