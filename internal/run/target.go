package run

import (
	"errors"
	"fmt"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// newTarget is the organization behind c as the reconciler sees it.
func newTarget(c *umapi.Client) *umtarget.Target { return umtarget.New(c, umtarget.Options{}) }

// WithSettingHint adds to err, an error from organization t's service,
// the settings to check when the service refused the sign-in or the
// organization: the service's message names a field of its own request
// (client_id, iss, sub), the hint the keys of the configuration file.
func WithSettingHint(err error, t *config.NamedTarget) error {
	var ae *umapi.APIError
	if !umapi.IsAuthFailure(err) || !errors.As(err, &ae) {
		return err
	}
	p := t.Path()
	if ae.Endpoint == umapi.EndpointToken {
		return fmt.Errorf("%w; the service refused the sign-in: check %s.orgId (%s) and %[2]s.auth (clientId, clientSecret, technicalAccountId, privateKey): they must be those of that organization's integration",
			err, p, t.OrgID)
	}
	return fmt.Errorf("%w; check %s.orgId (%s) and that the integration %[2]s.auth.clientId may manage that organization's users", err, p, t.OrgID)
}
