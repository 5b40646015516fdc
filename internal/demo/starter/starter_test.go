package starter

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/source/csvfile"
)

// TestConfigFillsEveryKind: each kind's starter has its source part, names
// the file and the kind, and leaves no template marker; an unknown kind
// is refused with the kinds there are.
func TestConfigFillsEveryKind(t *testing.T) {
	t.Parallel()
	for _, kind := range names(all.Kinds()) {
		text, err := Config(kind, "my.yaml")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if strings.Contains(text, "{{") || !strings.Contains(text, "my.yaml") || !strings.Contains(text, "sources:") {
			t.Errorf("%s: starter not filled in:\n%s", kind, text)
		}
	}
	if _, err := Config("oracle", "x.yaml"); err == nil || !strings.Contains(err.Error(), Kinds()) {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestWriteNewKeepsAnExistingFile: an existing file is kept unless force
// is set; what is written is readable by its owner only.
func TestWriteNewKeepsAnExistingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "orgsync.yaml")
	if err := WriteNew(path, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(path, []byte("two"), false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("over an existing file: %v", err)
	}
	if err := WriteNew(path, []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(data) != "three" || st.Mode().Perm() != 0o600 {
		t.Errorf("file %q mode %04o, want three and 0600", data, st.Mode().Perm())
	}
}

// TestConfigKeepsStateAndShowsNotify: every starter keeps a state
// directory (held removals need one) and shows a commented notify
// section.
func TestConfigKeepsStateAndShowsNotify(t *testing.T) {
	t.Parallel()
	for _, kind := range names(all.Kinds()) {
		text, _ := Config(kind, "my.yaml")
		if !strings.Contains(text, "\nstate:\n  dir: state\n") || !strings.Contains(text, "\n# notify:\n") || !strings.Contains(text, "#     - url: {env: SLACK_WEBHOOK_URL}") {
			t.Errorf("%s: no state.dir or no commented notify:\n%s", kind, text)
		}
	}
}

// TestANewKindIsOneRegistryLine: a kind added to the registry, with its
// variant, has a starter with nothing else changed here.
func TestANewKindIsOneRegistryLine(t *testing.T) {
	t.Parallel()
	hr := source.Variant{Name: "hr", Starter: "sources:\n  - hr: {url: https://hr.example.com}\n"}
	kinds := append(all.Kinds(), source.KindOf[csvfile.Config]("hr", hr))
	if !slices.Contains(names(kinds), "hr") || slices.Contains(names(all.Kinds()), "hr") {
		t.Fatalf("variants %v: want hr, which the registry has not", names(kinds))
	}
	text, err := configOf(kinds, "hr", "my.yaml", nil)
	if err != nil || !strings.Contains(text, "orgsync init --source hr") || !strings.Contains(text, hr.Starter) || !strings.Contains(text, "\nstate:\n") {
		t.Errorf("starter of the new kind: %v\n%s", err, text)
	}
}

// TestPackagedConfigKeepsStateWhereThePackageMadeIt: a configuration
// written into the packages' configuration folder keeps its state in
// their state directory (the folder itself is not the service user's to
// write); elsewhere beside the file.
func TestPackagedConfigKeepsStateWhereThePackageMadeIt(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		PackagedConfigDir + "/orgsync.yaml": "\nstate:\n  dir: " + PackagedStateDir + "\n",
		"orgsync.yaml":                      "\nstate:\n  dir: state\n",
		"/srv/sync/orgsync.yaml":            "\nstate:\n  dir: state\n",
	} {
		text, err := Config("csv", file)
		if err != nil || !strings.Contains(text, want) {
			t.Errorf("%s: %v, want %q in\n%s", file, err, want, text)
		}
	}
}

// TestWindowsStarterKeepsStateAndLogsUnderProgramData: the starter of a
// Windows installation (the MSI's, init's into %ProgramData%\orgsync)
// keeps its state and its logs there, as Windows paths.
func TestWindowsStarterKeepsStateAndLogsUnderProgramData(t *testing.T) {
	t.Parallel()
	l := WindowsLayout(`D:\ProgramData`)
	text, err := ConfigIn("ldap", l.ConfigDir+`\orgsync.yaml`, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"orgsync validate --config D:\\ProgramData\\orgsync\\orgsync.yaml ",
		"\nstate:\n  dir: D:\\ProgramData\\orgsync\\state\n",
		"\n  file: D:\\ProgramData\\orgsync\\logs\\orgsync.log   # also rotated\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	var doc struct {
		State   struct{ Dir string }
		Logging struct{ File string }
	}
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || doc.State.Dir != `D:\ProgramData\orgsync\state` || doc.Logging.File != `D:\ProgramData\orgsync\logs\orgsync.log` {
		t.Errorf("the YAML reads %+v, %v", doc, err)
	}
}
