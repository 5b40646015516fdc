package completion

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// fakeTree is a program with a command with subcommands (users list,
// users get) and one with flags and arguments (approve).
type fakeTree struct{}

func (fakeTree) Commands() []string { return []string{"approve", "plan", "users", "help"} }

func (fakeTree) IsHelp(w string) bool { return w == "help" || w == "-h" }

func (fakeTree) Inspect(cmd string, args []string) (*flag.FlagSet, []string, bool) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.String("config", "orgsync.yaml", "")
	fs.String("output", "text", "")
	fs.Bool("yes", false, "")
	switch {
	case cmd == "users" && (len(args) == 0 || !slices.Contains([]string{"list", "get"}, args[0])):
		return nil, []string{"list", "get"}, true
	case cmd == "users", cmd == "approve", cmd == "plan":
		return fs, nil, true
	}
	return nil, nil, false
}

func (fakeTree) Values(cmd string, f *flag.Flag, words []string) []string {
	if f.Name == "output" {
		return []string{"text", "json"}
	}
	return nil
}

func (fakeTree) Arguments(cmd string, words []string) []string {
	if cmd == "approve" {
		return []string{"a1b2", "c3d4"}
	}
	return nil
}

// TestCandidates completes commands, help's commands, subcommands, flags
// (with one dash or two), a flag's values (not a true-or-false flag's,
// nor after --flag=value) and arguments; nothing for a file name.
func TestCandidates(t *testing.T) {
	tests := []struct {
		words []string
		want  []string
	}{
		{nil, nil},
		{[]string{""}, []string{"approve", "plan", "users", "help"}},
		{[]string{"p"}, []string{"plan"}},
		{[]string{"help", ""}, []string{"approve", "plan", "users"}},
		{[]string{"-h", "u"}, []string{"users"}},
		{[]string{"help", "plan", "--o"}, []string{"--output"}},
		{[]string{"nope", ""}, nil},
		{[]string{"users", ""}, []string{"list", "get"}},
		{[]string{"users", "g"}, []string{"get"}},
		{[]string{"users", "list", "-"}, []string{"--config", "--output", "--yes"}},
		{[]string{"plan", "--output", ""}, []string{"text", "json"}},
		{[]string{"plan", "-output", "j"}, []string{"json"}},
		{[]string{"plan", "--output=json", ""}, nil},
		{[]string{"plan", "--config", ""}, nil},
		{[]string{"approve", "--yes", ""}, []string{"a1b2", "c3d4"}},
		{[]string{"approve", "c"}, []string{"c3d4"}},
		{[]string{"plan", ""}, nil},
	}
	for _, tt := range tests {
		if got := Candidates(fakeTree{}, tt.words); !slices.Equal(got, tt.want) {
			t.Errorf("%s<TAB> = %q, want %q", strings.Join(tt.words, " "), got, tt.want)
		}
	}
}
