package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source/all"
)

// TestHelpAgreesWithDashH: for every command, and each subcommand,
// orgsync help COMMAND [SUBCOMMAND] prints what COMMAND [SUBCOMMAND] -h
// prints, to standard output, and exits 0.
func TestHelpAgreesWithDashH(t *testing.T) {
	t.Parallel()
	var asked [][]string
	for name, c := range commands() {
		asked = append(asked, []string{name})
		for _, sub := range inspect(context.Background(), c, nil).subs {
			asked = append(asked, []string{name, sub})
		}
	}
	if len(asked) < len(commands())+4 {
		t.Fatalf("only %d commands and subcommands found", len(asked))
	}
	for _, words := range asked {
		hCode, hOut, hErr := runInProcess(append(slices.Clone(words), "-h")...)
		code, out, errOut := runInProcess(append([]string{"help"}, words...)...)
		if code != exitOK || hCode != exitOK || out == "" || out != hOut || errOut != hErr {
			t.Errorf("orgsync help %s (exit %d):\n%s%s\ndiffers from orgsync %[1]s -h (exit %d):\n%s%s",
				strings.Join(words, " "), code, out, errOut, hCode, hOut, hErr)
		}
	}
}

// bashComplete sources the bash completion script in bash, shows its
// registration (complete -p) and completes the words as bash would for
// the last of them, with the orgsync under test on PATH.
func bashComplete(t *testing.T, script string, env []string, words ...string) (registered string, got []string) {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	prog := "source " + script + "\ncomplete -p orgsync\n" +
		"COMP_WORDS=(orgsync " + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)) + "\n" +
		"_orgsync\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH")), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	var rest []string
	for _, l := range lines[1:] {
		if l != "" {
			rest = append(rest, l)
		}
	}
	return lines[0], rest
}

// TestBashCompletion runs the bash completion script in bash: it
// registers itself, and completes commands, subcommands, flags, the kinds
// init takes, output formats, organization names and the pending
// approvals of the configuration's state directory.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	r := runBinary(t, nil, "completion", "bash")
	if r.code != exitOK {
		t.Fatalf("completion bash: exit %d\n%s", r.code, r.stderr)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "orgsync.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	// A configuration with a state directory holding one pending approval.
	examples := exampleDir(t)
	stateDir := filepath.Join(dir, "state")
	cfg := configFor(t, examples, "multiorg", "http://127.0.0.1:1", "mapping:", "state: {dir: "+stateDir+"}\nmapping:")
	sd, err := store.Open(stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.SaveApproval(&store.Approval{ID: "a1b2c3d4", Org: "main", Created: time.Now(), Status: store.Pending, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	env := []string{"ORGSYNC_CONFIG=" + cfg}
	tests := []struct {
		words []string
		want  []string
	}{
		{[]string{"pl"}, []string{"plan"}},
		{[]string{"help", "va"}, []string{"validate"}},
		{[]string{"users", ""}, []string{"list", "get"}},
		{[]string{"users", "list", "--gr"}, []string{"--group"}},
		{[]string{"plan", "--detailed"}, []string{"--detailed-exitcode"}},
		{[]string{"init", "--source", ""}, starter.Names()},
		{[]string{"plan", "--output", "j"}, []string{"json"}},
		{[]string{"sync", "--log-level", "w"}, []string{"warn"}},
		{[]string{"plan", "--orgs", ""}, []string{"main", "emea"}},
		{[]string{"approve", ""}, []string{"a1b2c3d4"}},
		{[]string{"reject", "--config", cfg, "a1"}, []string{"a1b2c3d4"}},
		{[]string{"validate", "--config", ""}, nil}, // a file: the shell's own completion
	}
	// A file init wrote, its target not filled in: its organization and
	// state directory are completed all the same.
	starterFile := filepath.Join(dir, "starter.yaml")
	if r := runBinary(t, nil, "init", "--output", starterFile); r.code != exitOK {
		t.Fatalf("init: %s", r.stderr)
	}
	tests = append(tests, struct {
		words []string
		want  []string
	}{[]string{"plan", "--config", starterFile, "--orgs", ""}, []string{"default"}})
	for _, k := range all.Kinds() { // every kind of the registry has a starter
		if !slices.Contains(starter.Names(), k.Key) {
			t.Errorf("init --source does not complete the source kind %s", k.Key)
		}
	}
	for _, tt := range tests {
		registered, got := bashComplete(t, script, env, tt.words...)
		if registered != "complete -o default -F _orgsync orgsync" {
			t.Fatalf("complete -p orgsync = %q", registered)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("orgsync %s<TAB> = %q, want %q", strings.Join(tt.words, " "), got, tt.want)
		}
	}
}

// TestZshAndFishScriptsParse: the zsh and fish scripts are valid for
// their shells, and every shell named has a script.
func TestZshAndFishScriptsParse(t *testing.T) {
	t.Parallel()
	for shell, check := range map[string][]string{"zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		r := runBinary(t, nil, "completion", shell)
		if r.code != exitOK || !strings.Contains(r.stdout, "orgsync completion candidates --") {
			t.Fatalf("completion %s: exit %d\n%s%s", shell, r.code, r.stdout, r.stderr)
		}
		file := filepath.Join(t.TempDir(), "orgsync."+shell)
		if err := os.WriteFile(file, []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		prog := testenv.Program(t, shell, check[0])
		if out, err := exec.Command(prog, append(check[1:], file)...).CombinedOutput(); err != nil {
			t.Errorf("%s does not accept the script: %v\n%s", shell, err, out)
		}
	}
	if r := runBinary(t, nil, "completion", "tcsh"); r.code != exitError || !strings.Contains(r.stderr, "bash, fish, zsh") {
		t.Errorf("completion tcsh: exit %d\n%s", r.code, r.stderr)
	}
}
