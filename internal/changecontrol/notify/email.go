package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"github.com/orgsync/orgsync/secret"
)

// Email transport security.
const (
	TLSStartTLS = "starttls" // plain connection upgraded with STARTTLS, which the server must offer
	TLSImplicit = "tls"      // TLS from the first byte (port 465)
	TLSNone     = "none"     // no encryption: for a relay on the same host only
)

// Email sends events as plain-text mail over SMTP.
type Email struct {
	Host string
	Port int
	From string
	To   []string
	// Username and Password authenticate (PLAIN, over TLS only); no
	// Username, no authentication. The password is read at every send.
	Username string
	Password secret.Ref
	TLS      string
	// TLSConfig verifies the server (nil: the system's roots, ServerName Host).
	TLSConfig *tls.Config
	// Timeout bounds the whole dialogue; default 30s.
	Timeout time.Duration
}

// Name is the server's address.
func (m *Email) Name() string { return "email (" + m.addr() + ")" }

func (m *Email) addr() string { return net.JoinHostPort(m.Host, strconv.Itoa(m.Port)) }

// tlsConfig is the configuration to verify the server with.
func (m *Email) tlsConfig() *tls.Config {
	c := &tls.Config{ServerName: m.Host, MinVersion: tls.VersionTLS12}
	if m.TLSConfig != nil {
		c = m.TLSConfig.Clone()
		if c.ServerName == "" {
			c.ServerName = m.Host
		}
	}
	return c
}

// Send delivers e to every recipient in one mail.
func (m *Email) Send(ctx context.Context, e *Event) error {
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := m.dial(ctx)
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, m.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp %s: %w", m.addr(), err)
	}
	defer c.Close()
	if err := m.dialogue(c, e); err != nil {
		return fmt.Errorf("smtp %s: %w", m.addr(), err)
	}
	return c.Quit()
}

// dial connects, over TLS from the start when TLS is implicit.
func (m *Email) dial(ctx context.Context) (net.Conn, error) {
	if m.TLS == TLSImplicit {
		d := &tls.Dialer{Config: m.tlsConfig()}
		return d.DialContext(ctx, "tcp", m.addr())
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", m.addr())
}

// dialogue greets, secures, authenticates and sends the mail.
func (m *Email) dialogue(c *smtp.Client, e *Event) error {
	if err := c.Hello("orgsync"); err != nil {
		return err
	}
	if m.TLS == TLSStartTLS || m.TLS == "" {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("the server does not offer STARTTLS: nothing was sent (set tls: tls for a TLS port, or none for a local relay)")
		}
		if err := c.StartTLS(m.tlsConfig()); err != nil {
			return err
		}
	}
	if m.Username != "" {
		pw, err := m.Password.Load()
		if err != nil {
			return fmt.Errorf("password: %w", err)
		}
		if err := c.Auth(smtp.PlainAuth("", m.Username, pw.Reveal(), m.Host)); err != nil {
			return fmt.Errorf("authentication as %s: %w", m.Username, err)
		}
	}
	if err := c.Mail(m.From); err != nil {
		return err
	}
	for _, to := range m.To {
		if err := c.Rcpt(to); err != nil {
			return fmt.Errorf("recipient %s: %w", to, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(m.message(e)); err != nil {
		return err
	}
	return w.Close()
}

// message is the mail: headers, then the event's text (plain text, each
// line shown as data: no markup to escape, no control character, no line
// break a value could forge a line or a header with).
func (m *Email) message(e *Event) []byte {
	var b bytes.Buffer
	var id [8]byte
	_, _ = rand.Read(id[:])
	host := m.Host
	if i := strings.LastIndexByte(m.From, '@'); i >= 0 {
		host = m.From[i+1:]
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s@%s>\r\n",
		shown(m.From), shown(strings.Join(m.To, ", ")), mime.QEncoding.Encode("utf-8", e.Title()),
		e.Time.Format(time.RFC1123Z), hex.EncodeToString(id[:]), shown(host))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	for _, line := range strings.Split(strings.TrimRight(e.Text(), "\n"), "\n") {
		b.WriteString(line + "\r\n")
	}
	return b.Bytes()
}
