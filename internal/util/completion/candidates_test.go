package completion

import (
	"flag"
	"slices"
	"testing"
)

// A small program's tree: users (list, get) with --output (text, json)
// and --debug (a boolean), approve with its ids.
func tree() Tree {
	return Tree{
		Commands: []string{"approve", "users"},
		IsHelp:   func(w string) bool { return w == "help" || w == "-h" },
		Declared: func(cmd string, args []string) (*flag.FlagSet, []string) {
			if cmd == "users" && len(args) == 0 {
				return nil, []string{"get", "list"}
			}
			fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
			fs.String("output", "text", "")
			fs.Bool("debug", false, "")
			return fs, nil
		},
		Values: func(cmd string, f *flag.Flag, _ []string) []string {
			if f.Name == "output" {
				return []string{"text", "json"}
			}
			return nil
		},
		Arguments: func(cmd string, _ []string) []string {
			if cmd == "approve" {
				return []string{"ab12cd34", "ef56ab78"}
			}
			return nil
		},
	}
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{""}, []string{"approve", "users", "help"}},
		{[]string{"us"}, []string{"users"}},
		{[]string{"help", "a"}, []string{"approve"}},
		{[]string{"users", ""}, []string{"get", "list"}},
		{[]string{"users", "list", "--o"}, []string{"--output"}},
		{[]string{"users", "list", "--output", "j"}, []string{"json"}},
		{[]string{"users", "list", "--output=json", ""}, nil},
		{[]string{"users", "list", "--debug", ""}, nil},
		{[]string{"approve", "ef"}, []string{"ef56ab78"}},
		{[]string{"help", "approve", ""}, []string{"ab12cd34", "ef56ab78"}},
		{[]string{"nosuch", ""}, nil},
		{nil, nil},
	} {
		if got := tree().Candidates(tc.words); !slices.Equal(got, tc.want) {
			t.Errorf("Candidates(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestFlagValue: the value of a flag in the words typed so far, in each
// form, the last one winning; none when it has no value yet.
func TestFlagValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		words []string
		want  string
	}{
		{[]string{"plan", "--config", "a.yaml", "--orgs", ""}, "a.yaml"},
		{[]string{"plan", "-config=b.yaml"}, "b.yaml"},
		{[]string{"plan", "--config", "a.yaml", "--config=c.yaml"}, "c.yaml"},
		{[]string{"plan", "--config"}, ""},
		{[]string{"plan", "config", "a.yaml", "--configs", "x"}, ""},
	} {
		if got := FlagValue(tt.words, "config"); got != tt.want {
			t.Errorf("FlagValue(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
