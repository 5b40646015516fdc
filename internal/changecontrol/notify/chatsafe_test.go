package notify

import (
	"strings"
	"testing"
)

// TestSlackEscape replays finding 8 of issue 33 at the escaper: a first name
// that mentions everyone and disguises a link is shown as its text.
func TestSlackEscape(t *testing.T) {
	t.Parallel()
	in := "<!channel> <https://evil.example/sso|Click here to approve> & *bold* `code`"
	want := "&lt;!channel&gt; &lt;https://evil.example/sso|Click here to approve&gt; &amp; *bold* \u02cbcode\u02cb"
	if got := slackEscape(in); got != want {
		t.Errorf("slackEscape(%q) = %q, want %q", in, got, want)
	}
	if got := slackCode([]string{"a", "```x"}); got != "```\na\n\u02cb\u02cb\u02cbx\n```" {
		t.Errorf("slackCode = %q", got)
	}
}

func TestTeamsEscape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"{{DATE(2026-11-25T10:00:00Z, SHORT)}}": "{\u2060{DATE(2026-11-25T10:00:00Z, SHORT)}}",
		"{{{":                                   "{\u2060{\u2060{",
		"[Click here](https://evil.example) **b**": "[Click here](https://evil.example) **b**", // a TextRun shows Markdown as text
	} {
		if got := teamsEscape(in); got != want {
			t.Errorf("teamsEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSlackEscape: whatever the text, Slack's escape of it holds no < or >
// (no mention, link or channel reference), no backtick (nothing closes
// its code block) and no & but those of its escapes; reading the escapes
// back gives the text, its backticks shown as ˋ.
func FuzzSlackEscape(f *testing.F) {
	for _, s := range []string{"", "<!channel>", "<!here|here>", "<@U024BE7LH>", "<https://evil.example|Approve>", "&lt;", "&amp;lt;", "```", "*_~`", "<#C123>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := slackEscape(s)
		if strings.ContainsAny(out, "<>`") {
			t.Fatalf("slackEscape(%q) = %q", s, out)
		}
		rest := out
		for i := strings.IndexByte(rest, '&'); i >= 0; i = strings.IndexByte(rest, '&') {
			rest = rest[i:]
			if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") && !strings.HasPrefix(rest, "&gt;") {
				t.Fatalf("slackEscape(%q) = %q: a bare &", s, out)
			}
			rest = rest[1:]
		}
		back := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(out)
		if want := strings.ReplaceAll(s, "`", "\u02cb"); back != want {
			t.Fatalf("slackEscape(%q) = %q reads back as %q", s, out, back)
		}
	})
}

// FuzzTeamsEscape: whatever the text, its escape for a TextRun holds no {{ and,
// less the word joiners, is the text.
func FuzzTeamsEscape(f *testing.F) {
	for _, s := range []string{"", "{{DATE(2026-11-25T10:00:00Z)}}", "{{{", "{ {", "{\u2060{", "{{TIME(x)}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := teamsEscape(s)
		if strings.Contains(out, "{{") {
			t.Fatalf("teamsEscape(%q) = %q", s, out)
		}
		if !strings.Contains(s, wordJoiner) && strings.ReplaceAll(out, wordJoiner, "") != s {
			t.Fatalf("teamsEscape(%q) = %q is not the text", s, out)
		}
	})
}
