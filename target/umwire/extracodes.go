package umwire

// Error codes the simulator uses where neither the specification nor the
// contract names one (added by the simulator's engineer; the client may
// treat them like any other step error).
const (
	// ErrDomainNotClaimed: an Enterprise or Federated ID in a domain the
	// organization has not claimed, or an update moving an email or
	// username to a domain outside the user's directory (rule 8).
	ErrDomainNotClaimed = "error.domain.not_claimed"
	// ErrUsernameNoUpdate: update of username on an ID whose username
	// always equals its email (independent and Enterprise IDs), or on a
	// Federated ID whose email is not in a claimed domain (rule 7).
	ErrUsernameNoUpdate = "error.update.username.no"
	// InviteBadRequest is the status of a 400 from the invite endpoints
	// (parameters not understood).
	InviteBadRequest = "invites.request.invalid"
	// InviteServerError is the status of a 500 or 503 from the invite
	// listings (resend and revoke have the contract's own codes).
	InviteServerError = "invites.server.error"
)
