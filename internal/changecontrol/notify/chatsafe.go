// The escapes of the chat messages orgsync posts, so that no value from a
// directory or a server becomes a mention, a link or formatting there:
// Slack's mrkdwn and the text runs of a Microsoft Teams Adaptive Card.
// Control characters are not their concern: the text given has them
// escaped already (termsafe), as in every other output.

package notify

import "strings"

// slackEscapes replaces what Slack reads as markup in a message's text.
var slackEscapes = strings.NewReplacer(
	// Slack's documented escapes: with < and > escaped, no mention
	// (<!channel>, <!here>, <@U…>, <!subteam^…>), link (<url|text>) or
	// channel reference (<#C…>) can be written.
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	// A backtick would close the code block a value is shown in (inside
	// which Slack applies no formatting); mrkdwn has no escape for it, so
	// it is shown as the modifier letter grave accent, which looks alike.
	"`", "\u02cb",
)

// slackEscape escapes s for the text of a Slack message: &, < and > as Slack
// documents (&amp;, &lt;, &gt;), a backtick as ˋ (U+02CB). Shown inside a
// code block (slackCode), the result is neither a mention, a link nor
// formatting.
func slackEscape(s string) string { return slackEscapes.Replace(s) }

// slackCode returns lines, escaped (slackEscape), as one Slack code block:
// Slack formats nothing inside it (bold, italics, strike-through, lists,
// quotes, emoji codes).
func slackCode(lines []string) string {
	return "```\n" + slackEscape(strings.Join(lines, "\n")) + "\n```"
}

// wordJoiner is an invisible character that joins the two braces of {{
// without showing anything between them.
const wordJoiner = "\u2060"

// teamsEscape escapes s for the text of an Adaptive Card TextRun, which shows
// no Markdown (Microsoft's schema: "Markdown is not supported"), so no
// link or formatting: only its date and time functions, {{DATE(…)}} and
// {{TIME(…)}}, are interpreted, and a word joiner between the braces of
// {{ stops them.
func teamsEscape(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '{' && i+1 < len(s) && s[i+1] == '{' {
			b.WriteString(wordJoiner)
		}
	}
	return b.String()
}
