// Package reconcile is the core of orgsync: it holds the model of users and
// groups, computes the difference between a desired and a current state,
// plans it into the fewest requests the service's limits allow, and applies
// the plan through small interfaces that the adapters implement. It imports
// nothing else of ours.
package reconcile

import "strings"

// IdentityType is the kind of identity a user has in the service.
type IdentityType string

// The identity types of the specification.
const (
	VendorID     IdentityType = "vendorID"     // independent, owned by the user
	EnterpriseID IdentityType = "enterpriseID" // owned by the organization
	FederatedID  IdentityType = "federatedID"  // owned by the organization, signs in through SSO
	UnknownID    IdentityType = "unknown"
)

// ParseIdentityType accepts the specification's spelling in any letter case
// and the short forms "vendor" (or "independent"), "enterprise" and
// "federated". ok is false for anything else.
func ParseIdentityType(s string) (t IdentityType, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "vendorid", "vendor", "independent":
		return VendorID, true
	case "enterpriseid", "enterprise":
		return EnterpriseID, true
	case "federatedid", "federated":
		return FederatedID, true
	}
	return "", false
}

// OrgOwned reports whether the organization owns identities of this type
// (Enterprise and Federated IDs); only those can be updated or deleted.
func (t IdentityType) OrgOwned() bool { return t == EnterpriseID || t == FederatedID }

// User is one user, desired (from a source) or current (from the service).
// Groups holds target group names: user groups, product profiles and admin
// groups, in the case the source or service gave them.
type User struct {
	Type      IdentityType `json:"type"`
	Email     string       `json:"email,omitempty"`
	Username  string       `json:"username,omitempty"`
	Domain    string       `json:"domain,omitempty"`
	FirstName string       `json:"firstname,omitempty"`
	LastName  string       `json:"lastname,omitempty"`
	Country   string       `json:"country,omitempty"`
	Groups    []string     `json:"groups,omitempty"`
}

// Key is the identity a user is matched by, case-insensitively: the email
// for independent and Enterprise IDs and for email-based Federated IDs, and
// username plus domain for Federated IDs whose username is not an email.
func (u *User) Key() string {
	if u.Type == FederatedID && u.Username != "" && !strings.Contains(u.Username, "@") {
		return strings.ToLower(u.Username) + "@" + strings.ToLower(u.Domain)
	}
	if u.Email != "" {
		return strings.ToLower(u.Email)
	}
	return strings.ToLower(u.Username)
}
