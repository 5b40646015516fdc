package config

import (
	"fmt"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/secret"
)

// MinStatusToken is the shortest status.token accepted: the token
// guards a page that applies removals, so it must not be guessable
// (`openssl rand -hex 32` prints 64 hexadecimal digits).
const MinStatusToken = 32

// MinStatusPassword is the shortest status.password accepted: the password
// is the only factor that guards the page, and NIST SP 800-63B asks 15
// characters at least of such a password.
const MinStatusPassword = 15

// Status protects the daemon's status page ("/" and "/api/runs"): with
// Token, a request needs "Authorization: Bearer <token>" (or the session a
// browser gets by logging in with it); with Username, HTTP basic
// authentication with Password. With neither it is open, as the daemon
// listens on this machine only by default; an open page answers only the
// Host names that are its own: the listen address, localhost, an IP
// address, and AllowedHosts.
type Status struct {
	Token        secret.Ref `yaml:"token"`
	Username     string     `yaml:"username"`
	Password     secret.Ref `yaml:"password"`
	AllowedHosts []string   `yaml:"allowedHosts"`
}

// validate checks the status section.
func (s *Status) validate(v *validation) {
	if s.Token.IsSet() {
		secretRef(v, "status.token", s.Token)
	}
	if s.Username != "" {
		secretRef(v, "status.password", s.Password)
	} else if s.Password.IsSet() {
		v.errorf("status.username", "required with status.password")
	}
	for i, h := range s.AllowedHosts {
		if err := checkHostName(h); err != nil {
			v.errorf(index("status.allowedHosts", i), "%v", err)
		}
	}
}

// checkHostName checks an entry of status.allowedHosts: a host name as a
// browser sends it in Host, without a port or a scheme.
func checkHostName(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("empty: name a host, e.g. orgsync.example.com")
	case strings.Contains(h, "://") || strings.ContainsAny(h, "/ "):
		return fmt.Errorf("%q: a host name only, without a scheme or a path (e.g. orgsync.example.com)", h)
	}
	if _, _, err := net.SplitHostPort(h); err == nil {
		return fmt.Errorf("%q: a host name only, without a port (any port of the name is accepted)", h)
	}
	return nil
}

// StatusCredentials are the status page's secrets, read.
type StatusCredentials struct {
	Token, User, Password string
}

// Credentials reads the page's token and password (empty when unset).
// A token shorter than MinStatusToken, or a password shorter than
// MinStatusPassword, is refused, saying why.
func (s *Status) Credentials() (StatusCredentials, error) {
	var c StatusCredentials
	if s.Token.IsSet() {
		v, err := s.Token.Load()
		if err != nil {
			return c, fmt.Errorf("status.token: %w", err)
		}
		if n := utf8.RuneCountInString(v.Reveal()); n < MinStatusToken {
			return c, fmt.Errorf("status.token (%s): %s, fewer than %d: the token guards a page that approves removals, "+
				"so it must not be guessable; make one with `openssl rand -hex 32`", s.Token, plural.Of(n, "character", "characters"), MinStatusToken)
		}
		c.Token = v.Reveal()
	}
	if s.Username != "" {
		v, err := s.Password.Load()
		if err != nil {
			return c, fmt.Errorf("status.password: %w", err)
		}
		if n := utf8.RuneCountInString(v.Reveal()); n < MinStatusPassword {
			return c, fmt.Errorf("status.password (%s): %s, fewer than %d: the password alone guards a page that approves removals, "+
				"so it must not be guessable (NIST SP 800-63B asks 15 characters at least); make one with `openssl rand -base64 18`",
				s.Password, plural.Of(n, "character", "characters"), MinStatusPassword)
		}
		c.User, c.Password = s.Username, v.Reveal()
	}
	return c, nil
}

// preflight reads the page's secrets, so that one that cannot be read,
// or a token or password too short, is found before the daemon starts.
func (s *Status) preflight() []error {
	if _, err := s.Credentials(); err != nil {
		return []error{err}
	}
	return nil
}
