// Package umwire holds the wire format of the User Management Service
// (docs/service.md): the JSON bodies, the action command entries and steps,
// the result and error codes, the header names, and the specification's
// field rules (email, names, country, organization id). The client (umapi)
// and the simulator (umsim) both use it and share nothing else, so that the
// two cannot drift apart on a field name or a rule. "Rule N" and "contract
// N" in comments are the numbered action rules and decisions of
// docs/service.md.
package umwire

// BasePath prefixes every current endpoint: {base_url}/v2/usermanagement.
const BasePath = "/v2/usermanagement"

// Header names.
const (
	HeaderAPIKey          = "X-Api-Key"
	HeaderRequestID       = "X-Request-Id"
	HeaderUsertypeUnknown = "X-UMAPI-Usertype-Unknown"
	HeaderTotalCount      = "X-Total-Count"
	HeaderPageCount       = "X-Page-Count"
	HeaderCurrentPage     = "X-Current-Page"
	HeaderPageSize        = "X-Page-Size"
	HeaderCanonical       = "Canonical-Resource"
	HeaderRetryAfter      = "Retry-After"
	// WWWAuthenticateInvalid is the exact WWW-Authenticate value of a 401.
	WWWAuthenticateInvalid = `Bearer realm="JIL", error="invalid_token", error_description="The access token is invalid"`
)

// User statuses.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
	StatusLocked   = "locked"
	StatusRemoved  = "removed"
)

// Identity types as the service spells them.
const (
	TypeVendorID     = "vendorID"
	TypeEnterpriseID = "enterpriseID"
	TypeFederatedID  = "federatedID"
	TypeUnknown      = "unknown"
)

// Fixed admin groups and the prefixes of the others.
const (
	GroupOrgAdmin          = "_org_admin"
	GroupDeploymentAdmin   = "_deployment_admin"
	GroupSupportAdmin      = "_support_admin"
	GroupCompartmentAdmin  = "_compartment_admin"
	GroupCompartmentViewer = "_compartment_viewer"
	PrefixProductAdmin     = "_product_admin_"
	PrefixAdmin            = "_admin_"
	PrefixDeveloper        = "_developer_"
)

// User is the user object of the listings and of Get User Information.
type User struct {
	ID         string   `json:"id,omitempty"`
	Email      string   `json:"email,omitempty"`
	Username   string   `json:"username,omitempty"`
	Domain     string   `json:"domain,omitempty"`
	FirstName  string   `json:"firstname,omitempty"`
	LastName   string   `json:"lastname,omitempty"`
	Country    string   `json:"country,omitempty"`
	Status     string   `json:"status,omitempty"`
	Type       string   `json:"type,omitempty"`
	Groups     []string `json:"groups,omitempty"`
	AdminRoles []string `json:"adminRoles,omitempty"`
	Tags       []string `json:"tags,omitempty"`
}

// UsersPage is the body of endpoints 1, 2 and 7. GroupName is set by
// endpoint 2 only.
type UsersPage struct {
	LastPage  bool   `json:"lastPage"`
	Result    string `json:"result"`
	Message   string `json:"message,omitempty"`
	GroupName string `json:"groupName,omitempty"`
	Users     []User `json:"users"`
}

// UserInfo is the body of endpoint 3.
type UserInfo struct {
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
	User    *User  `json:"user,omitempty"`
}

// ErrorBody is the error body of the current read endpoints and of
// whole-request action failures. LastPage is only meaningful on the 404 of
// endpoint 2, which carries "lastPage": false.
type ErrorBody struct {
	LastPage *bool  `json:"lastPage,omitempty"`
	Result   string `json:"result"`
	Message  string `json:"message,omitempty"`
}

// RateLimitBody is the body of a 429.
type RateLimitBody struct {
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
}

// RateLimitCode is the error_code of a 429.
const RateLimitCode = "429050"

// Result values of read and action bodies.
const (
	ResultSuccess = "success"
	ResultPartial = "partial"
	ResultError   = "error"
)

// Error codes of the read endpoints.
const (
	ErrAPIKeyInvalid     = "error.apikey.invalid"
	ErrUserEmailInvalid  = "error.user.email.invalid"
	ErrNotParentOrg      = "error.api.user.not.parent.org"
	ErrOrgInvalidID      = "error.organization.invalid_id"
	ErrGroupNotFound     = "error.group.not_found"
	ErrUserNotFound      = "error.user.not_found"
	ErrDomainNotFound    = "error.domain.not_found"
	ErrRequestMalformed  = "error.request.malformed"
	ErrCommandMalformed  = "error.command.malformed"
	ErrStepUnknown       = "error.command.step.unknown"
	ErrCreateMoreThanOne = "error.command.create.more_than_one"
	ErrCreateNotFirst    = "error.command.create.not_first"
	ErrRemoveNotLast     = "error.command.removefromorg.not_last"
	ErrListTooLong       = "error.command.add_remove.list_too_long"
	ErrProtectedGroup    = "error.command.add_remove.protected_group"
	ErrTooManySteps      = "error.command.too_many_steps"
	ErrUserNonexistent   = "error.user.nonexistent"
	ErrUserExists        = "error.user.already_exists"
	ErrUserInvited       = "error.user.already_invited"
	ErrFirstnameMissing  = "error.user.firstname_missing"
	ErrLastnameMissing   = "error.user.lastname_missing"
	ErrStringTooLong     = "error.command.string.too_long"
	ErrCountryInvalid    = "error.country.invalid"
	ErrCountryNoUpdate   = "error.update.country.no_update"
	ErrUpdateVendorID    = "error.update.vendorid.no"
	ErrUpdateCaseOnly    = "error.update.case_only"
	ErrDomainMissing     = "error.command.domain.missing"
	ErrOptionIllegal     = "error.option.illegal"
	ErrUserGroupNotFound = "error.usergroup.not_found"
	ErrUserGroupExists   = "error.usergroup.already_exists"
	ErrGroupInvalidName  = "error.group.invalid_name"
)

// Limits of the specification and contract.
const (
	MaxEntriesPerRequest  = 10
	MaxMembershipsPerStep = 10 // add or remove, per user entry; names per user-group step
	MaxStepsPerEntry      = 10
	MaxNameLength         = 250
	MaxEmailLength        = 60
	MaxUserGroupName      = 255
	MaxUsersPerPage       = 2000
	MaxInvitesPerCall     = 200
)
