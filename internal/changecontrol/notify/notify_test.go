package notify

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/changecontrol/notify/smtptest"
	"github.com/orgsync/orgsync/secret/secrettest"
)

func heldEvent() *Event {
	return &Event{Kind: Held, Org: "emea", Run: "r1", Time: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Summary: "3 removals exceed maxRemovals 1: held for approval", Approval: "0123abcd",
		Changes: []string{"- remove a@example.com", ".starts with a dot"}, More: 2, Counts: map[string]int{"remove": 3}}
}

func emailTo(t *testing.T, s *smtptest.Server, password string) *Email {
	host, port, _ := net.SplitHostPort(s.Addr)
	p, _ := strconv.Atoi(port)
	return &Email{Host: host, Port: p, From: "orgsync@example.com", To: []string{"ops@example.com", "it@example.com"},
		Username: "orgsync", Password: secrettest.File(t, password), TLS: TLSStartTLS,
		TLSConfig: &tls.Config{RootCAs: s.Roots}}
}

func TestEmailOverSTARTTLSWithAuthentication(t *testing.T) {
	t.Parallel()
	s := smtptest.Start(t, true)
	if err := emailTo(t, s, "s3cret-pw").Send(context.Background(), heldEvent()); err != nil {
		t.Fatal(err)
	}
	got := s.Received()
	if len(got) != 1 {
		t.Fatalf("%d mails received, want 1", len(got))
	}
	m := got[0]
	if !m.TLS || m.From != "orgsync@example.com" || strings.Join(m.To, ",") != "ops@example.com,it@example.com" {
		t.Errorf("mail %+v", m)
	}
	for _, want := range []string{"Subject: orgsync: changes held for approval in emea", "orgsync approve 0123abcd",
		"- remove a@example.com", "\r\n.starts with a dot\r\n", "... and 2 more"} {
		if !strings.Contains(m.Data, want) {
			t.Errorf("mail lacks %q:\n%s", want, m.Data)
		}
	}
}

func TestEmailRefusals(t *testing.T) {
	t.Parallel()
	s := smtptest.Start(t, true)
	err := emailTo(t, s, "wrong-pw").Send(context.Background(), heldEvent())
	if err == nil || !strings.Contains(err.Error(), "authentication as orgsync") || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("wrong password: %v", err)
	}
	plain := smtptest.Start(t, false)
	err = emailTo(t, plain, "s3cret-pw").Send(context.Background(), heldEvent())
	if err == nil || !strings.Contains(err.Error(), "does not offer STARTTLS") {
		t.Errorf("no STARTTLS: %v", err)
	}
	if n := len(plain.Received()) + len(s.Received()); n != 0 {
		t.Errorf("%d mails sent despite the refusals", n)
	}
	if plain.AuthAttempts() != 0 {
		t.Error("the password was sent over a connection without TLS")
	}
	untrusted := emailTo(t, s, "s3cret-pw")
	untrusted.TLSConfig = nil // the system's roots do not know the test's certificate
	if err := untrusted.Send(context.Background(), heldEvent()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: %v", err)
	}
}

// receiver is a webhook receiver on loopback that fails the first fails
// posts with 500.
type receiver struct {
	url    string
	posts  atomic.Int32
	fails  int32
	bodies chan []byte
}

func startReceiver(t *testing.T, fails int32) *receiver {
	r := &receiver{fails: fails, bodies: make(chan []byte, 10)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := r.posts.Add(1)
		if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON POST", http.StatusBadRequest)
			return
		}
		if n <= r.fails {
			http.Error(w, "try later", http.StatusInternalServerError)
			return
		}
		b, _ := io.ReadAll(req.Body)
		r.bodies <- b
	}))
	t.Cleanup(hs.Close)
	r.url = hs.URL + "/hook/T0KEN"
	return r
}

func webhookTo(t *testing.T, url, format string) *Webhook {
	return &Webhook{URL: secrettest.File(t, url), Format: format, Client: &http.Client{Timeout: 5 * time.Second}}
}

func TestWebhookFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		check  func(map[string]any) bool
	}{
		{FormatJSON, func(m map[string]any) bool {
			return m["event"] == "held" && m["org"] == "emea" && m["approval"] == "0123abcd" && len(m["changes"].([]any)) == 2
		}},
		{FormatSlack, func(m map[string]any) bool {
			text, _ := m["text"].(string)
			return strings.HasPrefix(text, "*orgsync: changes held for approval in emea*") && strings.Contains(text, "orgsync approve 0123abcd")
		}},
		{FormatTeams, func(m map[string]any) bool {
			att, _ := m["attachments"].([]any)
			if m["type"] != "message" || len(att) != 1 {
				return false
			}
			a := att[0].(map[string]any)
			card := a["content"].(map[string]any)
			body := card["body"].([]any)
			return a["contentType"] == "application/vnd.microsoft.card.adaptive" && card["type"] == "AdaptiveCard" &&
				strings.Contains(teamsText(body), "- remove a@example.com")
		}},
	} {
		r := startReceiver(t, 0)
		if err := webhookTo(t, r.url, tc.format).Send(context.Background(), heldEvent()); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		var m map[string]any
		if err := json.Unmarshal(<-r.bodies, &m); err != nil || !tc.check(m) {
			t.Errorf("%s: body %v (%v)", tc.format, m, err)
		}
	}
}

func TestDispatcherRetriesAndNeverFails(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	flaky, down := startReceiver(t, 2), startReceiver(t, 100)
	d := &Dispatcher{Log: zap.New(core), Attempts: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond,
		Notifiers: []Notifier{webhookTo(t, flaky.url, FormatJSON)}}
	d.Send(context.Background(), heldEvent())
	if flaky.posts.Load() != 3 || len(flaky.bodies) != 1 {
		t.Errorf("flaky receiver: %d posts, %d delivered; want 3 and 1", flaky.posts.Load(), len(flaky.bodies))
	}
	d.Notifiers = []Notifier{webhookTo(t, down.url, FormatSlack)}
	d.Send(context.Background(), heldEvent())
	if down.posts.Load() != 3 {
		t.Errorf("receiver that is down: %d posts, want 3 attempts", down.posts.Load())
	}
	failed := logs.FilterMessage("notification not sent").All()
	if len(failed) != 1 {
		t.Fatalf("%d 'not sent' log lines, want 1", len(failed))
	}
	for _, e := range logs.All() {
		for _, f := range e.Context {
			if strings.Contains(f.String, "T0KEN") || (f.Interface != nil && strings.Contains(errString(f.Interface), "T0KEN")) {
				t.Errorf("the webhook's secret URL is in a log line: %v", e)
			}
		}
	}
}

func errString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return ""
}

// TestBackoffStaysInRange: over the whole input range the wait is within
// [minWait/2, maxWait] and never negative, and it grows with the attempt
// until maxWait.
func TestBackoffStaysInRange(t *testing.T) {
	t.Parallel()
	waits := []time.Duration{0, 1, time.Millisecond, time.Second, time.Minute, math.MaxInt64 / 2, math.MaxInt64}
	attempts := []int{math.MinInt, -1, 0, 1, 2, 10, 30, 61, 62, 63, 64, 1000, math.MaxInt}
	rs := []float64{-1, 0, 0.5, 0.999999, 1, math.NaN(), math.Inf(1)}
	for _, lo := range waits {
		for _, hi := range waits {
			for _, a := range attempts {
				for _, r := range rs {
					d := Backoff(a, lo, hi, r)
					lo2, hi2 := max(lo, time.Millisecond), max(hi, lo, time.Millisecond)
					if d < lo2/2 || d > hi2 {
						t.Fatalf("Backoff(%d, %v, %v, %v) = %v, outside [%v, %v]", a, lo, hi, r, d, lo2/2, hi2)
					}
				}
			}
		}
	}
	prev := time.Duration(0)
	for a := range 12 {
		d := Backoff(a, time.Second, time.Minute, 0)
		if d < prev {
			t.Fatalf("attempt %d waits %v, less than the one before (%v)", a, d, prev)
		}
		prev = d
	}
	if prev != time.Minute {
		t.Errorf("the wait stops at %v, want maxWait", prev)
	}
}
