// Package umapi is a client of the User Management Service, as
// docs/service.md describes it (the specification, with the contract's
// decisions for what the specification leaves open).
//
// It covers every endpoint: the paged organization and group member
// listings (streamed page by page as iterators), the group listing (user
// groups and product profiles; outside the specification's endpoints, so a
// service may refuse it, see IsNotServed), user lookup, the action endpoint
// (with a batcher that sends at most ten entries a request and reports each
// entry's outcome), the deprecated invite, product and all-users endpoints,
// and both ways of getting an access token (JWT exchange and OAuth client
// credentials).
//
// Every request waits on client-side rate limiters sized so that a run at
// the configured limits receives no 429 from a server that enforces them
// with sliding windows, and is retried on 429 (after Retry-After), 5xx,
// timeouts and dropped connections with exponential back-off and jitter.
// Retrying an action request is safe because the commands the batcher sends
// are idempotent (contract section 3); an entry whose create step carries no
// option is not idempotent, so a request holding one is never retried after
// an ambiguous failure (see Client.Action).
//
// The package imports only the wire format (target/umwire) and the panic
// carrier (internal/util/crash) of this project, so it can be used on its own.
package umapi
