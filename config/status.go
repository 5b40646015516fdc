package config

import "github.com/orgsync/orgsync/secret"

// Status protects the daemon's status page ("/" and "/api/runs"): with
// Token, a request needs "Authorization: Bearer <token>"; with Username,
// HTTP basic authentication with Password. With neither it is open, as
// the daemon listens on this machine only by default.
type Status struct {
	Token    secret.Ref `yaml:"token"`
	Username string     `yaml:"username"`
	Password secret.Ref `yaml:"password"`
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
}

// Secrets reads the page's token, user and password (empty when unset).
func (s *Status) Secrets() (token, user, password string, err error) {
	if s.Token.IsSet() {
		v, err := s.Token.Load()
		if err != nil {
			return "", "", "", err
		}
		token = v.Reveal()
	}
	if s.Username != "" {
		v, err := s.Password.Load()
		if err != nil {
			return "", "", "", err
		}
		user, password = s.Username, v.Reveal()
	}
	return token, user, password, nil
}
