package interspersed

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParse: flags before, between and after the arguments are parsed,
// the arguments kept in order; after "--" every word is an argument; a
// bad flag and -h are the flag package's errors.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		config     string
		yes        bool
		positional []string
	}{
		{nil, "orgsync.yaml", false, nil},
		{[]string{"get", "a@example.com"}, "orgsync.yaml", false, []string{"get", "a@example.com"}},
		{[]string{"a@example.com", "--config", "x.yaml", "-yes"}, "x.yaml", true, []string{"a@example.com"}},
		{[]string{"--yes", "one", "--config=y.yaml", "two"}, "y.yaml", true, []string{"one", "two"}},
		{[]string{"one", "--", "--config", "z.yaml", "-yes"}, "orgsync.yaml", false, []string{"one", "--config", "z.yaml", "-yes"}},
		{[]string{"--", "-"}, "orgsync.yaml", false, []string{"-"}},
		{[]string{"-", "--yes"}, "orgsync.yaml", true, []string{"-"}},
	}
	for _, tt := range tests {
		fs, config, yes := flags()
		if err := Parse(fs, tt.args); err != nil || *config != tt.config || *yes != tt.yes || !slices.Equal(fs.Args(), tt.positional) {
			t.Errorf("Parse(%q): --config %q, --yes %v, arguments %q, %v; want %q, %v, %q",
				tt.args, *config, *yes, fs.Args(), err, tt.config, tt.yes, tt.positional)
		}
	}
	for _, args := range [][]string{{"one", "--nope"}, {"one", "--config"}} {
		if fs, _, _ := flags(); Parse(fs, args) == nil {
			t.Errorf("Parse(%q): no error", args)
		}
	}
	if fs, _, _ := flags(); !errors.Is(Parse(fs, []string{"one", "-h"}), flag.ErrHelp) {
		t.Error("-h after an argument is not flag.ErrHelp")
	}
}

func flags() (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, fs.String("config", "orgsync.yaml", ""), fs.Bool("yes", false, "")
}

// FuzzParse: whatever the words, Parse does not panic; and words that are
// not flags come back as the arguments, in order, with --yes anywhere
// among them.
func FuzzParse(f *testing.F) {
	f.Add("one two", uint8(1))
	f.Add("-x --", uint8(0))
	f.Fuzz(func(t *testing.T, line string, at uint8) {
		words := strings.Fields(line)
		fs, _, _ := flags()
		Parse(fs, words) //nolint:errcheck // only that it returns
		plain := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return strings.HasPrefix(w, "-") })
		args := slices.Insert(slices.Clone(plain), int(at)%(len(plain)+1), "--yes")
		fs, _, yes := flags()
		if err := Parse(fs, args); err != nil || !*yes || !slices.Equal(fs.Args(), plain) {
			t.Errorf("Parse(%q): arguments %q, --yes %v, %v; want %q", args, fs.Args(), *yes, err, plain)
		}
	})
}
