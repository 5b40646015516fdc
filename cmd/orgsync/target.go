package main

import (
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// newTarget is the organization behind c as the reconciler sees it.
func newTarget(c *umapi.Client) target { return umtarget.New(c, umtarget.Options{}) }
