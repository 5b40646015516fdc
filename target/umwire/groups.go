package umwire

// The group listing (GET /groups/{orgId}/{page}) names every user group
// and product profile of the organization, a page at a time. The
// specification names it among the current listings without showing it;
// its shape follows the service's public documentation.

// Group types of the group listing.
const (
	GroupTypeUserGroup      = "USER_GROUP"
	GroupTypeProductProfile = "PRODUCT_PROFILE"
)

// Group is one entry of the group listing.
type Group struct {
	GroupID        string `json:"groupId,omitempty"`
	GroupName      string `json:"groupName"`
	Type           string `json:"type"`
	MemberCount    int    `json:"memberCount"`
	ProductName    string `json:"productName,omitempty"`
	LicenseQuota   string `json:"licenseQuota,omitempty"`
	AdminGroupName string `json:"adminGroupName,omitempty"`
}

// GroupsPage is the body of the group listing.
type GroupsPage struct {
	LastPage bool    `json:"lastPage"`
	Result   string  `json:"result"`
	Message  string  `json:"message,omitempty"`
	Groups   []Group `json:"groups"`
}
