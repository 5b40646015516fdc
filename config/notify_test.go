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

// TestEmailPasswordNeverInClear: notify.email with tls: none and a user
// name (whose password the mail client sends) to a host other than this
// machine is refused at notify.email.tls, saying what to do; to this
// machine (a local relay), or without credentials, it loads.
func TestEmailPasswordNeverInClear(t *testing.T) {
	t.Setenv("SMTP_PW", "pw")
	t.Setenv("TEST_SECRET", "s")
	email := func(host, extra string) string {
		return minimal + "notify:\n  email:\n    host: " + host + "\n    from: o@example.com\n    to: [ops@example.com]\n    tls: none\n" + extra
	}
	login := "    username: orgsync\n    password: {env: SMTP_PW}\n"
	for _, host := range []string{"smtp.example.com", "10.0.0.25", "127.0.0.2"} {
		err := loadError(t, email(host, login))
		if !strings.Contains(err, "notify.email.tls (line 19): none would send notify.email.password in clear over the network to "+host) ||
			!strings.Contains(err, "use starttls (the default) or tls") || strings.Contains(err, "pw\n") {
			t.Errorf("tls: none with a password to %s:\n%s", host, err)
		}
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		loadText(t, email(host, login))
	}
	loadText(t, email("smtp.example.com", "")) // no credentials to send
}
