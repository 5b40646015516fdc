package run

import (
	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// newTarget is the organization behind c as the reconciler sees it.
func newTarget(c *umapi.Client) *umtarget.Target { return umtarget.New(c) }

// WithSettingHint adds to err, an error from organization t's service,
// the keys of the configuration to check (see config.NamedTarget.Hint).
func WithSettingHint(err error, t *config.NamedTarget) error { return t.Hint(err) }
