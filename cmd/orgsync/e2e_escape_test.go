package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/csvsafe"
	"github.com/orgsync/orgsync/internal/util/termsafe"
	"github.com/orgsync/orgsync/target/umsim"
)

// hostileGroup is a directory group name that is a spreadsheet formula,
// sets the terminal's title and rings its bell (findings 6 and 7 of issue
// 33); hostileFirstName mentions everyone in Slack with a disguised link
// to approve (finding 8).
const (
	hostileGroup     = "=SUM(1+2)\x1b]0;pwned\a\x1b[41m"
	hostileFirstName = "<!channel> <https://evil.example/sso|Click here to approve>"
	hostileEmail     = "=1+2@example.com"
)

// TestHostileDirectoryValuesReachNoReaderAsCode replays findings 6, 7
// and 8 of issue 33 with the binary against the simulator: a CSV user
// whose email and group are formulas carrying terminal escapes, and whose
// first name is Slack markup. plan, sync (console logs), history and
// users list show no control character; the --report CSV and
// policy.reportFile hold no formula; the Slack notification holds no
// mention or link.
func TestHostileDirectoryValuesReachNoReaderAsCode(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	users := filepath.Join(dir, "csv", "users.csv")
	clean, err := os.ReadFile(users)
	if err != nil {
		t.Fatal(err)
	}
	hostile := string(clean) + `"` + strings.ReplaceAll(hostileFirstName, `"`, `""`) + `",Evil,` + hostileEmail + `,US,"eng,evil` + hostileGroup + `"` + "\n"
	if err := os.WriteFile(users, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, dir, "csv", s.url,
		"mapping:\n", "mapping:\n  - pattern: \"evil(.*)\"\n    targets: [\"$1\"]\n",
		"unmatchedUsers: remove-groups", "unmatchedUsers: remove-groups\n  createUserGroups: true\n  reportFile: unmatched.csv",
		"maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state\nnotify:\n  onChanges: true\n  webhooks:\n    - url: {env: HOOK_URL}\n      format: slack")
	env := []string{"HOOK_URL=" + h.url}
	escaped := termsafe.String(hostileGroup, termsafe.Cell)

	shownAsData := func(what, text string) {
		t.Helper()
		if !termsafe.Safe(text, termsafe.Text) || !strings.Contains(text, escaped) {
			t.Errorf("%s does not show the group as data (escaped %q):\n%q", what, escaped, text)
		}
	}
	r := runBinary(t, env, "plan", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	shownAsData("plan", r.stdout)
	report := filepath.Join(dir, "report.csv")
	r = runBinary(t, env, "sync", "--config", cfg, "--log-format", "console", "--log-level", "debug", "--report", report)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	shownAsData("sync's output", r.stdout)
	if !termsafe.Safe(r.stderr, termsafe.Text) {
		t.Errorf("sync's console log holds a control character:\n%q", r.stderr)
	}
	noFormulas(t, report)
	r = runBinary(t, env, "history", "--config", cfg)
	shownAsData("history", r.stdout)
	r = runBinary(t, env, "users", "list", "--config", cfg)
	shownAsData("users list", r.stdout)

	hooks := h.events()
	if len(hooks) == 0 {
		t.Fatal("no notification posted")
	}
	for _, body := range hooks {
		text, _ := body["text"].(string)
		if strings.ContainsAny(text, "<>") || strings.Contains(text, "<!channel>") || !strings.Contains(text, "&lt;!channel&gt;") {
			t.Errorf("the Slack text has the name as markup:\n%s", text)
		}
	}

	// The hostile user, no longer in the source, is unmatched: written
	// to policy.reportFile.
	if err := os.WriteFile(users, clean, 0o600); err != nil {
		t.Fatal(err)
	}
	if r = runBinary(t, env, "plan", "--config", cfg); r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	rows := noFormulas(t, filepath.Join(dir, "csv", "unmatched.csv"))
	found := false
	for _, row := range rows {
		found = found || row[0] == "'"+hostileEmail && strings.HasSuffix(row[len(row)-1], ","+hostileGroup)
	}
	if !found {
		t.Errorf("policy.reportFile lacks the user as text: %q", rows)
	}
}

// noFormulas reads the CSV file at path and fails t when a cell would be
// a formula in a spreadsheet; it returns the rows.
func noFormulas(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, row := range rows {
		for _, c := range row {
			if csvsafe.Dangerous(c) {
				t.Errorf("%s: the cell %q is a formula", filepath.Base(path), c)
			}
			if strings.HasPrefix(c, "'=") {
				quoted++
			}
		}
	}
	if quoted == 0 {
		t.Errorf("%s holds none of the hostile values: %q", filepath.Base(path), rows)
	}
	return rows
}
