package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/orgsync/orgsync/secret"
)

// Webhook formats.
const (
	FormatJSON  = "json"  // the Event as JSON
	FormatSlack = "slack" // a Slack incoming webhook's {"text": ...}
	FormatTeams = "teams" // a Microsoft Teams workflow's message with an Adaptive Card
)

// Webhook posts events to a URL, which is a secret (a Slack or Teams
// webhook's URL carries its token): it is read at every send, so that a
// rotated one is used at once, and never logged.
type Webhook struct {
	URL    secret.Ref
	Format string
	Client *http.Client
}

// Name is "webhook" and the format: the URL is a secret.
func (w *Webhook) Name() string { return "webhook (" + w.Format + ")" }

// Send posts e in the webhook's format; any answer but 2xx is an error.
func (w *Webhook) Send(ctx context.Context, e *Event) error {
	u, err := w.URL.Load()
	if err != nil {
		return err
	}
	body, err := Body(w.Format, e)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.Reveal(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the webhook's URL does not parse") // the error would show the URL
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.Client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // without the URL
		}
		return fmt.Errorf("posting to the webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the webhook answered %s", resp.Status)
	}
	return nil
}

// Body is e encoded in format. The Slack and Teams bodies show every
// value of the event as text, never as markup (chatsafe.go): no directory
// value becomes a mention, a link or formatting.
func Body(format string, e *Event) ([]byte, error) {
	switch format {
	case FormatJSON:
		return json.Marshal(e)
	case FormatSlack:
		m := e.message()
		return json.Marshal(map[string]string{"text": slackText(&m)})
	case FormatTeams:
		m := e.message()
		return json.Marshal(teamsMessage(&m))
	}
	return nil, fmt.Errorf("webhook format %q: want json, slack or teams", format)
}

// slackText is the text of a Slack message (mrkdwn): the title in bold,
// the summary, the error and the changes in a code block, inside which
// Slack formats nothing, then the commands that decide the approval;
// every piece escaped for Slack (slackEscape).
func slackText(m *message) string {
	text := "*" + slackEscape(m.title) + "*\n" + slackCode(append(slices.Clone(m.head), m.changes...))
	if d := m.decision("`", slackEscape); d != "" {
		text += "\n" + d
	}
	return text
}

// teamsMessage is a Teams workflow ("When a Teams webhook request is
// received") message: one Adaptive Card whose every line is a TextRun,
// which shows no Markdown (teamsEscape): the title in bold, then the
// summary, the error, the commands and the changes.
func teamsMessage(m *message) any {
	type block = map[string]any
	run := func(text string, style block) block {
		r := block{"type": "TextRun", "text": teamsEscape(text)}
		maps.Copy(r, style)
		return block{"type": "RichTextBlock", "inlines": []block{r}}
	}
	body := []block{run(m.title, block{"weight": "Bolder", "size": "Medium"})}
	lines := slices.Clone(m.head)
	if d := m.decision("", plain); d != "" {
		lines = append(lines, d)
	}
	for _, l := range append(lines, m.changes...) {
		body = append(body, run(l, block{"fontType": "Monospace"}))
	}
	return block{
		"type": "message",
		"attachments": []block{{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"content": block{
				"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
				"type":    "AdaptiveCard",
				"version": "1.4",
				"body":    body,
			},
		}},
	}
}
