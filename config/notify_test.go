package config

import (
	"strings"
	"testing"
)

func TestNotifyDefaultsAndPaths(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal+`notify:
  webhooks:
    - url: {env: HOOK}
    - url: {file: key.pem}
      format: teams
  email: {host: smtp.example.com, from: orgsync@example.com, to: [ops@example.com], tls: tls}
`)
	n := cfg.Notify
	if n.Webhooks[0].Format != WebhookJSON || n.Email.Port != 465 || !strings.HasSuffix(n.Webhooks[1].URL.File, "/key.pem") {
		t.Errorf("notify %+v, email %+v", n, n.Email)
	}
	if cfg = loadText(t, minimal+"notify: {email: {host: h, from: f@example.com, to: [t@example.com]}}\n"); cfg.Notify.Email.Port != 587 || cfg.Notify.Email.TLS != EmailSTARTTLS {
		t.Errorf("email defaults %+v", cfg.Notify.Email)
	}
}

func TestNotifyProblems(t *testing.T) {
	t.Parallel()
	err := loadError(t, minimal+`notify:
  webhooks:
    - url: https://hooks.example.com/T0KEN
    - url: {env: HOOK}
      format: xml
  email: {username: u, tls: ssl, port: 0}
`)
	for _, want := range []string{
		"notify.webhooks[0].url (line 16): secrets are never written in the file",
		`notify.webhooks[1].format (line 18): "xml"`,
		"notify.email.host (line 19): required",
		"notify.email.to (line 19): required",
		"notify.email.tls (line 19)",
		"notify.email.password (line 19): required",
	} {
		if !strings.Contains(err, want) {
			t.Errorf("want %q in:\n%s", want, err)
		}
	}
	if strings.Contains(err, "T0KEN") {
		t.Errorf("the inline webhook URL leaked into the error:\n%s", err)
	}
}
