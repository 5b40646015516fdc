package config

import (
	"fmt"
	"time"

	"github.com/orgsync/orgsync/secret"
)

// Notify says whom to tell about runs: a failed run and changes held for
// approval always, every run with changes when OnChanges is set, and a
// configuration that no longer loads (the daemon).
type Notify struct {
	OnChanges bool      `yaml:"onChanges"`
	Webhooks  []Webhook `yaml:"webhooks"`
	Email     *Email    `yaml:"email"`
	// Retries bound how a failed notification is tried again; default 3
	// retries, waiting 1s growing to 30s.
	Retries Retries `yaml:"retries"`
	// Timeout bounds each notification, its retries included (default
	// 10s): a webhook or mail server that does not answer never holds a
	// run or the daemon longer.
	Timeout time.Duration `yaml:"timeout"`
}

// Webhook formats (Webhook.Format).
const (
	WebhookJSON  = "json"
	WebhookSlack = "slack"
	WebhookTeams = "teams"
)

// Webhook is an address events are posted to.
type Webhook struct {
	// URL is a secret (a Slack or Teams webhook's URL carries its token).
	URL secret.Ref `yaml:"url"`
	// Format is json (default: the event as JSON), slack or teams.
	Format string `yaml:"format"`
}

// Email transport security (Email.TLS).
const (
	EmailSTARTTLS = "starttls"
	EmailTLS      = "tls"
	EmailNone     = "none"
)

// Email sends events by mail over SMTP.
type Email struct {
	Host string `yaml:"host"`
	// Port defaults to 587, or 465 with tls: tls.
	Port int      `yaml:"port"`
	From string   `yaml:"from"`
	To   []string `yaml:"to"`
	// Username and Password authenticate; no username, no authentication.
	Username string     `yaml:"username"`
	Password secret.Ref `yaml:"password"`
	// TLS is starttls (default), tls (implicit TLS) or none (a relay on
	// the same host only).
	TLS string `yaml:"tls"`
	// CAFile is a PEM bundle of extra certificate authorities.
	CAFile string `yaml:"caFile"`
}

// applyDefaults fills in what the notify section leaves out.
func (n *Notify) applyDefaults() {
	setDefault(&n.Retries.Max, 3)
	setDefault(&n.Retries.MinWait, time.Second)
	setDefault(&n.Retries.MaxWait, 30*time.Second)
	setDefault(&n.Timeout, DefaultNotifyTimeout)
	for i := range n.Webhooks {
		setDefault(&n.Webhooks[i].Format, WebhookJSON)
	}
	if m := n.Email; m != nil {
		setDefault(&m.TLS, EmailSTARTTLS)
		if m.TLS == EmailTLS {
			setDefault(&m.Port, 465)
		}
		setDefault(&m.Port, 587)
	}
}

// filePaths lists the notify section's file paths.
func (n *Notify) filePaths() []*string {
	if m := n.Email; m != nil {
		return []*string{&m.CAFile}
	}
	return nil
}

// secretRefs lists the notify section's secret references.
func (n *Notify) secretRefs() []*secret.Ref {
	var out []*secret.Ref
	for i := range n.Webhooks {
		out = append(out, &n.Webhooks[i].URL)
	}
	if m := n.Email; m != nil {
		out = append(out, &m.Password)
	}
	return out
}

// validate checks the notify section.
func (n *Notify) validate(v *validation) {
	positive(v, "notify.timeout", int64(n.Timeout))
	for i := range n.Webhooks {
		path := index("notify.webhooks", i)
		secretRef(v, join(path, "url"), n.Webhooks[i].URL)
		oneOf(v, join(path, "format"), n.Webhooks[i].Format, webhookFormats)
	}
	m := n.Email
	if m == nil {
		return
	}
	if m.Host == "" {
		v.errorf("notify.email.host", "required: the SMTP server's name")
	}
	if m.From == "" {
		v.errorf("notify.email.from", "required: the sender's address")
	}
	if len(m.To) == 0 {
		v.errorf("notify.email.to", "required: at least one recipient")
	}
	if m.Port < 1 || m.Port > 65535 {
		v.errorf("notify.email.port", "must be a port number (1-65535)")
	}
	oneOf(v, "notify.email.tls", m.TLS, emailTLSModes)
	if m.Username != "" {
		secretRef(v, "notify.email.password", m.Password)
	}
	if m.Username != "" && m.TLS == EmailNone && !thisMachine(m.Host) {
		v.errorf("notify.email.tls", "none would send notify.email.password in clear over the network to %s: use starttls (the default) or tls; "+
			"none is for a relay on this machine (host: localhost) only", m.Host)
	}
}

// thisMachine reports whether host names this machine as the mail client
// understands it: the only host it sends a password to without TLS (Go's
// net/smtp PlainAuth: localhost, 127.0.0.1, ::1).
func thisMachine(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// preflight reads every secret of the notify section, so that one that
// cannot be read (an unset variable) is found before the first
// notification is lost.
func (n *Notify) preflight() []error {
	var out []error
	for i := range n.Webhooks {
		if _, err := n.Webhooks[i].URL.Load(); err != nil {
			out = append(out, fmt.Errorf("%s: %w", join(index("notify.webhooks", i), "url"), err))
		}
	}
	if m := n.Email; m != nil && m.Username != "" {
		if _, err := m.Password.Load(); err != nil {
			out = append(out, fmt.Errorf("notify.email.password: %w", err))
		}
	}
	return out
}
