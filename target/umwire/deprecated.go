package umwire

// Invite is a pending invite (deprecated API).
type Invite struct {
	Email       string    `json:"email"`
	InviteCode  string    `json:"inviteCode"`
	LastSentDTS int64     `json:"lastSentDTS"` // milliseconds since the epoch
	InvitedBy   InvitedBy `json:"invitedBy"`
}

// InvitedBy is the administrator (or integration) who sent an invite;
// every field is always present.
type InvitedBy struct {
	ID          string `json:"id" yaml:"id,omitempty"`
	Email       string `json:"email" yaml:"email,omitempty"`
	FirstName   string `json:"firstName" yaml:"firstName,omitempty"`
	LastName    string `json:"lastName" yaml:"lastName,omitempty"`
	CountryCode string `json:"countryCode" yaml:"countryCode,omitempty"`
}

// InviteStatus is the body of a successful resend or revoke.
type InviteStatus struct {
	Status string `json:"status"`
}

// InviteError is the error body of the invite endpoints (contract 7).
type InviteError struct {
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
}

// Invite error codes.
const (
	InviteNotFound    = "invites.pending.not_found"
	InviteResendError = "invites.pending.resend.error"
	InviteRevokeError = "invites.pending.revoke.error"
)

// Invite listing query values.
const (
	SortEmail    = "EMAIL"
	SortLastSent = "LAST_SENT_DTS"
	SortAsc      = "ASC"
	SortDesc     = "DESC"
)

// Product is one product of the deprecated products listing.
type Product struct {
	ID                 string `json:"id"`
	Code               string `json:"code"`
	Name               string `json:"name"`
	UserCount          int    `json:"userCount"`
	ConfigurationCount int    `json:"configurationCount"`
	LicenseQuota       int    `json:"licenseQuota"`
}
