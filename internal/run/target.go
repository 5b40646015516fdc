package run

import (
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// newTarget is the organization behind c as the reconciler sees it.
func newTarget(c *umapi.Client) *umtarget.Target { return umtarget.New(c) }
