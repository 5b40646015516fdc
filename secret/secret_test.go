package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadFromEnvAndFile(t *testing.T) {
	// Not parallel: it loads a secret from an environment variable of the process (t.Setenv).
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
	t.Parallel()
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
	t.Parallel()
	v := Value("hunter2")
	j, _ := json.Marshal(struct{ P Value }{v})
	for _, s := range []string{fmt.Sprint(v), fmt.Sprintf("%v %s %#v %+v", v, v, v, v), string(j)} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("secret leaked in %q", s)
		}
	}
}

// An exec secret is the command's standard output, read anew on every
// Load (a rotated secret is picked up), run without a shell.
func TestLoadFromExec(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "current")
	if err := os.WriteFile(path, []byte("first-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := Ref{Exec: []string{"cat", path}}
	if v, err := ref.Load(); err != nil || v.Reveal() != "first-secret" {
		t.Fatalf("exec: got %q, %v", v.Reveal(), err)
	}
	if err := os.WriteFile(path, []byte("rotated-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := ref.Load(); err != nil || v.Reveal() != "rotated-secret" {
		t.Fatalf("exec after rotation: got %q, %v", v.Reveal(), err)
	}
	// No shell: a ; is an argument, not a second command.
	if v, err := (Ref{Exec: []string{"echo", "a;", "echo", "b"}}).Load(); err != nil || v.Reveal() != "a; echo b" {
		t.Fatalf("exec without a shell: got %q, %v", v.Reveal(), err)
	}
}

func TestExecErrorsSayWhatWentWrongWithoutTheSecret(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		ref  Ref
		want string
	}{
		"not found":   {Ref{Exec: []string{"orgsync-no-such-command"}}, "not found"},
		"fails":       {Ref{Exec: []string{"sh", "-c", "echo the-printed-secret; echo permission denied >&2; exit 3"}}, "secret command sh failed with exit code 3"},
		"prints none": {Ref{Exec: []string{"true"}}, "printed nothing"},
		"too slow":    {Ref{Exec: []string{"sleep", "5"}, Timeout: 100 * time.Millisecond}, "did not finish within 100ms"},
	} {
		_, err := tc.ref.Load()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "the-printed-secret") {
			t.Errorf("%s: the error holds the command's output: %v", name, err)
		}
	}
	for name, ref := range map[string]Ref{
		"two places":       {Env: "X", Exec: []string{"true"}},
		"no program":       {Exec: []string{""}},
		"timeout, no exec": {Env: "X", Timeout: time.Second},
	} {
		if err := ref.Check(); err == nil {
			t.Errorf("%s: Check() = nil, want an error", name)
		}
	}
}

// TestACommandsStandardErrorStaysOutOfItsError: what a failing secret
// command writes on standard error (a secret manager quoting its token)
// is not in the error's text, which run records, /healthz and
// notifications show: the text is fixed, with the exit code. It is the
// error's local detail (for the log), on one line and cut to maxStderr.
func TestACommandsStandardErrorStaysOutOfItsError(t *testing.T) {
	t.Parallel()
	script := `{ echo "permission denied for token hvs.CAESIJ-vault-token"; head -c 100000 /dev/zero | tr '\0' x; } >&2; exit 7`
	_, err := Ref{Exec: []string{"sh", "-c", script}}.Load()
	var ce *CommandError
	if !errors.As(err, &ce) || ce.ExitCode != 7 {
		t.Fatalf("err = %v, want a CommandError with exit code 7", err)
	}
	if want := "secret command sh failed with exit code 7 (what it wrote on standard error is in orgsync's log)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	d := ce.LocalDetail()
	if !strings.Contains(d, "permission denied for token hvs.CAESIJ-vault-token xxx") || len(d) > maxStderr+100 || strings.Contains(d, "\n") {
		t.Errorf("LocalDetail() = %.400q (%d bytes)", d, len(d))
	}
}
