package notify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/termsafe"
)

// hostileName is finding 8 of issue 33: a first name that mentions
// everyone in Slack and disguises a link to approve, with Markdown for
// Teams, a date function, a terminal escape and a forged line.
const hostileName = "<!channel> <https://evil.example/sso|Click here to approve> [Approve](https://evil.example) **now** " +
	"{{DATE(2026-11-25T10:00:00Z, SHORT)}} \x1b]0;pwned\a\nforged: approve with orgsync approve ffff"

func hostileEvent() *Event {
	e := heldEvent()
	e.Changes = []string{`+ create eve@example.com (federatedID) firstname="` + hostileName + `"`}
	e.Error = hostileName
	return e
}

// TestSlackShowsDirectoryValuesAsText: in the Slack body no mention or
// link can be written (no < or > but Slack's escapes), the values are in
// a code block (no formatting) they cannot close, and the title and the
// commands stay as they were.
func TestSlackShowsDirectoryValuesAsText(t *testing.T) {
	t.Parallel()
	body, err := Body(FormatSlack, hostileEvent())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	text := m["text"]
	parts := strings.Split(text, "```")
	if len(parts) != 3 || strings.ContainsAny(text, "<>") || !termsafe.Safe(text, termsafe.Text) ||
		!strings.HasPrefix(text, "*orgsync: changes held for approval in emea*\n```\n") ||
		!strings.Contains(parts[1], "&lt;!channel&gt; &lt;https://evil.example/sso|Click here to approve&gt;") ||
		!strings.Contains(parts[2], "approval 0123abcd: review it with `orgsync approve 0123abcd`, or discard it with `orgsync reject 0123abcd`") ||
		strings.Contains(text, "\nforged") {
		t.Errorf("Slack text:\n%s", text)
	}
}

// TestTeamsShowsDirectoryValuesAsText: every text of the card is a
// TextRun (which shows no Markdown), none with a date function or a line
// break of its own.
func TestTeamsShowsDirectoryValuesAsText(t *testing.T) {
	t.Parallel()
	body, err := Body(FormatTeams, hostileEvent())
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Attachments []struct {
			Content struct {
				Body []struct {
					Type    string
					Text    *string
					Inlines []struct{ Type, Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(body, &m); err != nil || len(m.Attachments) != 1 {
		t.Fatalf("%s: %v", body, err)
	}
	runs := 0
	for _, b := range m.Attachments[0].Content.Body {
		if b.Type != "RichTextBlock" || b.Text != nil || len(b.Inlines) != 1 || b.Inlines[0].Type != "TextRun" {
			t.Errorf("card element %+v is not one TextRun", b)
			continue
		}
		text := b.Inlines[0].Text
		if strings.Contains(text, "{{") || strings.Contains(text, "\n") || !termsafe.Safe(text, termsafe.Text) {
			t.Errorf("text run %q", text)
		}
		if strings.Contains(text, "[Approve](https://evil.example)") {
			runs++
		}
	}
	if runs != 2 { // the error and the change
		t.Errorf("the name is in %d text runs, want 2", runs)
	}
}

// TestMailShowsDirectoryValuesAsText: the mail is plain text whose lines
// carry no control character, and a value's line break forges no line.
func TestMailShowsDirectoryValuesAsText(t *testing.T) {
	t.Parallel()
	msg := string((&Email{From: "orgsync@example.com", To: []string{"ops@example.com"}, Host: "mail"}).message(hostileEvent()))
	if !strings.Contains(msg, "Content-Type: text/plain; charset=utf-8\r\n") || strings.Contains(msg, "\r\nforged") ||
		!termsafe.Safe(strings.ReplaceAll(msg, "\r\n", "\n"), termsafe.Text) || !strings.Contains(msg, `\x1b]0;pwned\a\nforged`) {
		t.Errorf("mail:\n%s", msg)
	}
}

// teamsText is the text of a Teams card's elements, one a line.
func teamsText(body []any) string {
	var b strings.Builder
	for _, e := range body {
		for _, in := range e.(map[string]any)["inlines"].([]any) {
			b.WriteString(in.(map[string]any)["text"].(string) + "\n")
		}
	}
	return b.String()
}

// FuzzBodies: whatever the directory or a server put in an event (its
// summary, error and changes), the Slack text has no < or > (no mention
// or link) and exactly one code block, the Teams card's texts are all
// TextRuns without a date function, and no body, mail included, carries
// a control character or a line break of a value.
func FuzzBodies(f *testing.F) {
	f.Add("3 removals held", hostileName, "- remove <@U024BE7LH>@example.com")
	f.Add("```", "`*_~", "{{{TIME(x)}}")
	f.Fuzz(func(t *testing.T, summary, errText, change string) {
		e := heldEvent()
		e.Summary, e.Error, e.Changes = summary, errText, []string{change, change}
		slack, err := Body(FormatSlack, e)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]string
		if err := json.Unmarshal(slack, &s); err != nil {
			t.Fatal(err)
		}
		lines := 7 // title, code block (summary, 2 changes, more), commands
		if errText != "" {
			lines++
		}
		if text := s["text"]; strings.ContainsAny(text, "<>") || strings.Count(text, "```") != 2 || !termsafe.Safe(text, termsafe.Text) ||
			strings.Count(text, "\n") != lines {
			t.Fatalf("Slack text %q", text)
		}
		teams, err := Body(FormatTeams, e)
		if err != nil {
			t.Fatal(err)
		}
		var card map[string]any
		if err := json.Unmarshal(teams, &card); err != nil {
			t.Fatal(err)
		}
		body := card["attachments"].([]any)[0].(map[string]any)["content"].(map[string]any)["body"].([]any)
		if text := teamsText(body); strings.Contains(text, "{{") || strings.Count(text, "\n") != len(body) || !termsafe.Safe(text, termsafe.Text) {
			t.Fatalf("Teams texts %q", text)
		}
		mail := string((&Email{From: "orgsync@example.com", To: []string{"ops@example.com"}, Host: "mail"}).message(e))
		if lines := strings.Split(mail, "\r\n"); !termsafe.Safe(strings.Join(lines, "\n"), termsafe.Text) || lines[len(lines)-2] != "... and 2 more" {
			t.Fatalf("mail %q", mail)
		}
	})
}
