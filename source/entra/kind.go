package entra

import (
	"cmp"
	"os"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// Label returns the tenant (source.Config).
func (c *Config) Label() string {
	return cmp.Or(c.TenantID, os.Getenv(EnvTenantID), c.Auth)
}

// Uses returns the app's credential (secrets), the federated token file
// (a file that Kubernetes renews, not a secret reference) and
// users.extraAttributes (source.Config).
func (c *Config) Uses() source.Uses {
	u := c.Users.Uses(map[string]*secret.Ref{"clientSecret": &c.ClientSecret, "certificate": &c.Certificate, "privateKey": &c.PrivateKey})
	u.Files = []*string{&c.FederatedTokenFile}
	return u
}

// Open checks the configuration and returns a *Source (source.Config);
// it does not sign in yet (Read does, each time). A configuration problem
// is returned as a diag.FieldErrors naming every bad key.
func (c *Config) Open(name string, o source.Options) (source.Source, error) {
	s := &Source{cfg: *c}
	s.cfg.applyDefaults()
	var err error
	s.Source, err = clouddir.Open(name, o, clouddir.Kind{Problems: c.Validate(), Users: &s.cfg.Users.UserFields, Defaults: defaultTemplates,
		API: clouddir.API{BaseURL: s.cfg.GraphURL, Timeout: s.cfg.Timeout, Auth: s.auth, Hint: s.hint,
			Directory: func(c *restapi.Client, attrs []string) clouddir.Directory {
				if s.cfg.Users.MailFallback != NoMailFallback {
					attrs = append(attrs, s.cfg.Users.MailFallback)
				}
				return newGraph(c, &s.cfg, attrs)
			}}})
	if err != nil {
		return nil, err
	}
	return s, nil
}
