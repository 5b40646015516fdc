package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/changecontrol/notify/smtptest"
	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/target/umsim"
)

// hooks is a webhook receiver on loopback keeping the JSON bodies posted.
type hooks struct {
	mu     sync.Mutex
	bodies []map[string]any
	url    string
}

func startHooks(t *testing.T) *hooks {
	h := &hooks{}
	h.url = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			http.Error(w, "not JSON", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.bodies = append(h.bodies, m)
		h.mu.Unlock()
	}))
	return h
}

// urlRef returns the webhook's URL as a secret reference to a file of the
// test's own, for the configuration ("{file: PATH}"): a test that sets
// an environment variable cannot run in parallel.
func (h *hooks) urlRef(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hook-url")
	if err := os.WriteFile(path, []byte(h.url), 0o600); err != nil {
		t.Fatal(err)
	}
	return "{file: " + path + "}"
}

func (h *hooks) events() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.bodies...)
}

// TestNotifiesHeldApprovalAndChanges: a sync over the removal limit posts
// one event per organization to a webhook, the held approval's, which
// says what else was applied (onChanges), and mails them over STARTTLS with authentication (the password
// from a file); a notifier that cannot be reached is logged and does not
// fail the sync; a failed run is notified.
func TestNotifiesHeldApprovalAndChanges(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	mail := smtptest.Start(t, true)
	host, port, _ := net.SplitHostPort(mail.Addr)
	ca, pw := filepath.Join(dir, "smtp-ca.pem"), filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(ca, mail.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pw, []byte(mail.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dead := testenv.RefusedAddr(t)
	deadURL := "http://" + dead + "/hook"
	env := []string{"HOOK_URL=" + h.url + "/T0KEN", "DEAD_HOOK_URL=" + deadURL}
	notifySection := `
notify:
  onChanges: true
  retries: {max: 2, minWait: 10ms, maxWait: 20ms}
  webhooks:
    - url: {env: HOOK_URL}
    - url: {env: DEAD_HOOK_URL}
      format: slack
  email:
    host: ` + host + `
    port: ` + port + `
    from: orgsync@example.com
    to: [ops@example.com]
    username: ` + mail.User + `
    password: {file: ` + pw + `}
    caFile: ` + ca
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 1\nstate:\n  dir: state"+notifySection)
	r := runBinary(t, env, "sync", "--config", cfg)
	m := heldID.FindStringSubmatch(r.stdout)
	if r.code != exitOK || m == nil {
		t.Fatalf("sync: exit %d, want 0 holding an approval\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	kinds := map[string]int{}
	for _, ev := range h.events() {
		kinds[ev["event"].(string)]++
		if ev["event"] == string(notify.Held) && (ev["approval"] != m[1] || ev["org"] != "default" || len(ev["changes"].([]any)) == 0) {
			t.Errorf("held event %v, want approval %s with its changes", ev, m[1])
		}
		host, _ := os.Hostname()
		if cmds, _ := ev["commands"].(map[string]any); ev["event"] == string(notify.Held) &&
			(ev["host"] != host || cmds["approve"] != "orgsync approve "+m[1] || cmds["reject"] != "orgsync reject "+m[1]) {
			t.Errorf("held event %v, want the host %s and the commands that decide it", ev, host)
		}
	}
	if kinds["held"] != 1 || len(kinds) != 1 {
		t.Errorf("webhook events %v, want one held (which says what was applied)", kinds)
	}
	mails := mail.Received()
	if len(mails) != 1 || !mails[0].TLS {
		t.Fatalf("%d mails (TLS %v), want 1 over TLS", len(mails), len(mails) > 0 && mails[0].TLS)
	}
	all := mails[0].Data
	if !strings.Contains(all, "Subject: orgsync: changes held for approval in default") || !strings.Contains(all, "orgsync approve "+m[1]) ||
		!strings.Contains(all, "the other changes were applied (5 changes were applied)") {
		t.Errorf("mails lack the held approval and what was applied:\n%s", all)
	}
	if !strings.Contains(r.stderr, "notification not sent") || !strings.Contains(r.stderr, "webhook (slack)") {
		t.Errorf("the unreachable webhook is not logged:\n%s", r.stderr)
	}
	for _, secret := range []string{"T0KEN", mail.Password} {
		if strings.Contains(r.stderr+r.stdout, secret) {
			t.Errorf("%q (a secret) is in the output:\n%s", secret, r.stderr)
		}
	}

	// Bob is in design again: the run narrows the approval, and says so.
	rewrite(t, filepath.Join(dir, "csv", "users.csv"), "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	before := len(h.events())
	runBinary(t, env, "sync", "--config", cfg)
	var narrowed map[string]any
	for _, ev := range h.events()[before:] {
		if ev["event"] == string(notify.Narrowed) {
			narrowed = ev
		}
	}
	if narrowed == nil || narrowed["summary"] != "approval "+m[1]+": 1 change no longer asked for by the sources, 1 change still held" {
		t.Errorf("narrowing notification %v", narrowed)
	}

	// A run that fails is notified as a failure.
	rewrite(t, cfg, s.url, "http://"+dead)
	runBinary(t, env, "sync", "--config", cfg)
	last := h.events()[len(h.events())-1]
	if last["event"] != string(notify.Failure) || last["error"] == "" {
		t.Errorf("last event after a failed run: %v, want a failure with its error", last)
	}
}
