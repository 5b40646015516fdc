package run

import (
	"context"
	"strings"
	"testing"
)

// TestValidateChecksEveryOrganization: the multi-organization example is
// valid; each organization's desired users are counted and, with the
// target check, each is signed in to. An organization that cannot be
// reached is a problem of its own, and the others are checked all the
// same.
func TestValidateChecksEveryOrganization(t *testing.T) {
	cfg := exampleConfig(t, "multiorg")
	j, err := New(cfg, Overrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := j.Validate(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(v.Lines, "\n")
	for _, want := range []string{"organization main (", "organization emea (", "targets[0]: signed in", "targets[1]: signed in"} {
		if !strings.Contains(text, want) {
			t.Errorf("lines lack %q:\n%s", want, text)
		}
	}
	if v.Problems != 0 || !strings.Contains(v.Summary(), ": configuration valid; ") {
		t.Errorf("%d problems, summary %q:\n%s", v.Problems, v.Summary(), text)
	}

	cfg.Targets[1].BaseURL, cfg.Targets[1].AuthBaseURL = "http://127.0.0.1:1", "http://127.0.0.1:1"
	j, err = New(cfg, Overrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err = j.Validate(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	text = strings.Join(v.Lines, "\n")
	if v.Problems != 1 || !strings.Contains(text, "problem: targets[1]") || !strings.Contains(text, "targets[0]: signed in") ||
		!strings.Contains(v.Summary(), "1 problem to fix") {
		t.Errorf("%d problems, summary %q:\n%s", v.Problems, v.Summary(), text)
	}
}
