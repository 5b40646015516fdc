package ldap

import (
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Label returns the server's URL (source.Config).
func (c *Config) Label() string { return c.URL }

// Uses returns the CA bundle, the Kerberos files, the bind password and
// users.extraAttributes (source.Config).
func (c *Config) Uses() source.Uses {
	return source.Uses{Files: []*string{&c.TLS.CAFile, &c.Kerberos.Keytab, &c.Kerberos.CCache, &c.Kerberos.Config}, Secrets: map[string]*secret.Ref{"password": &c.Password, "ntHash": &c.NTHash},
		ExtraAttributesKey: "users.extraAttributes", ExtraAttributes: c.Users.ExtraAttributes}
}

// Open checks the configuration and returns the source (source.Config);
// it does not connect yet (Read does, each time). A configuration problem
// is returned as a diag.FieldErrors naming every bad key.
func (c *Config) Open(name string, o source.Options) (source.Source, error) {
	if err := diag.Err(c.Validate()); err != nil {
		return nil, err
	}
	cfg := *c
	cfg.applyDefaults()
	f, err := usertmpl.Parse(cfg.Users.spec(), defaultTemplates, "users.")
	if err != nil {
		return nil, err
	}
	return &Source{name: name, cfg: cfg, fields: f, mapper: o.Mapper, log: o.Logger().With(zap.String("source", name)),
		callerChecksGroups: o.CallerChecksGroups, prog: o.Expressions, explain: o.Explain, blockKey: o.Key}, nil
}
