package okta

import (
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// Label returns the organization's URL (source.Config).
func (c *Config) Label() string { return c.OrgURL }

// Uses returns the API token or the service app's key (every file of an
// okta block is a secret) and users.extraAttributes (source.Config).
func (c *Config) Uses() source.Uses {
	return c.Users.Uses(map[string]*secret.Ref{"apiToken": &c.APIToken, "privateKey": &c.PrivateKey})
}

// Open checks the configuration and returns a *Source (source.Config);
// it does not sign in yet (Read does, each time). A configuration problem
// is returned as a diag.FieldErrors naming every bad key.
func (c *Config) Open(name string, o source.Options) (source.Source, error) {
	s := &Source{cfg: *c, SearchSettle: DefaultSearchSettle}
	s.cfg.applyDefaults()
	var err error
	s.Source, err = clouddir.Open(name, o, clouddir.Kind{Problems: c.Validate(), Users: &s.cfg.Users.UserFields, Defaults: defaultTemplates,
		API: clouddir.API{BaseURL: s.cfg.OrgURL, Timeout: s.cfg.Timeout, Auth: s.auth, Hint: s.hint,
			Directory: func(c *restapi.Client, attrs []string) clouddir.Directory {
				return newAPI(c, &s.cfg, attrs, s.SearchSettle)
			}}})
	if err != nil {
		return nil, err
	}
	return s, nil
}
