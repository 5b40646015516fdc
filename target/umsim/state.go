package umsim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/target/umwire"
)

// State is the simulator's whole data set and the schema of its seed file
// (YAML or JSON, the same field names). Snapshot returns one; LoadState
// reads one; New serves one.
type State struct {
	Org          Org           `yaml:"org" json:"org"`
	Integrations []Integration `yaml:"integrations,omitempty" json:"integrations,omitempty"`
	Products     []Product     `yaml:"products,omitempty" json:"products,omitempty"`
	// UserGroups are the organization's user groups; a user group may
	// grant product profiles to its members (indirect memberships).
	UserGroups []UserGroup `yaml:"userGroups,omitempty" json:"userGroups,omitempty"`
	// AdminGroups names the administrative groups that exist besides the
	// fixed _org_admin, _deployment_admin and _support_admin:
	// _product_admin_<product>, _admin_<group or profile>,
	// _developer_<profile>.
	AdminGroups []string `yaml:"adminGroups,omitempty" json:"adminGroups,omitempty"`
	// Users are the members of the organization, in listing order.
	Users []User `yaml:"users,omitempty" json:"users,omitempty"`
	// DirectoryUsers are organization-owned accounts (Enterprise and
	// Federated IDs) that were removed from the organization's user list
	// without deleting the account; creating them again re-attaches them.
	DirectoryUsers []User `yaml:"directoryUsers,omitempty" json:"directoryUsers,omitempty"`
	// Invites are the pending (and expired) invitations of independent IDs.
	Invites []Invite `yaml:"invites,omitempty" json:"invites,omitempty"`
}

// Org is the organization the simulator serves.
type Org struct {
	ID        string   `yaml:"id" json:"id"` // <hex>@VendorOrg
	Migrating bool     `yaml:"migrating,omitempty" json:"migrating,omitempty"`
	Domains   []Domain `yaml:"domains,omitempty" json:"domains,omitempty"`
}

// Domain is a domain linked to the organization.
type Domain struct {
	Name string `yaml:"name" json:"name"`
	// Directory names the directory the domain belongs to; the domain of an
	// email or username may only change within one directory.
	Directory string `yaml:"directory,omitempty" json:"directory,omitempty"`
	// Claimed domains may hold Enterprise and Federated IDs.
	Claimed bool `yaml:"claimed,omitempty" json:"claimed,omitempty"`
}

// Integration is an API client (service account) allowed to use the
// service.
type Integration struct {
	ClientID           string `yaml:"clientID" json:"clientID"`
	ClientSecret       string `yaml:"clientSecret" json:"clientSecret"`
	TechnicalAccountID string `yaml:"technicalAccountID" json:"technicalAccountID"`
	// Certificate is the PEM X.509 certificate whose public key verifies
	// the integration's JWTs; CertificateFile names a file holding it
	// instead (relative to the seed file).
	Certificate        string `yaml:"certificate,omitempty" json:"certificate,omitempty"`
	CertificateFile    string `yaml:"certificateFile,omitempty" json:"certificateFile,omitempty"`
	CertificateExpired bool   `yaml:"certificateExpired,omitempty" json:"certificateExpired,omitempty"`
	// Email, FirstName, LastName and CountryCode describe the technical
	// account in the invitedBy of the invites the integration sends; see
	// InvitedBy for their defaults.
	Email       string `yaml:"email,omitempty" json:"email,omitempty"`
	FirstName   string `yaml:"firstName,omitempty" json:"firstName,omitempty"`
	LastName    string `yaml:"lastName,omitempty" json:"lastName,omitempty"`
	CountryCode string `yaml:"countryCode,omitempty" json:"countryCode,omitempty"`
}

// InvitedBy is the invitedBy object (every field of the specification) of
// the invites the integration sends: id is the technical account id;
// email defaults to the technical account id when that is an email
// address (as the service's are), else to it @techacct.example.com;
// firstName to "Technical", lastName to "Account" and countryCode to "US".
func (in *Integration) InvitedBy() umwire.InvitedBy {
	email := in.TechnicalAccountID
	if !strings.Contains(email, "@") {
		email += "@techacct.example.com"
	}
	return umwire.InvitedBy{
		ID: in.TechnicalAccountID, Email: cmp.Or(in.Email, email), FirstName: cmp.Or(in.FirstName, "Technical"),
		LastName: cmp.Or(in.LastName, "Account"), CountryCode: cmp.Or(in.CountryCode, "US"),
	}
}

// Product is a product with its product profiles.
type Product struct {
	ID   string `yaml:"id,omitempty" json:"id,omitempty"`
	Code string `yaml:"code,omitempty" json:"code,omitempty"`
	Name string `yaml:"name" json:"name"`
	// LicenseQuota is the number of licenses; members of the product's
	// profiles beyond it (in listing order) are "inactive". 0: unlimited.
	LicenseQuota int      `yaml:"licenseQuota,omitempty" json:"licenseQuota,omitempty"`
	Profiles     []string `yaml:"profiles,omitempty" json:"profiles,omitempty"`
}

// UserGroup is a user group; its members also hold Profiles indirectly.
type UserGroup struct {
	Name        string   `yaml:"name" json:"name"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Profiles    []string `yaml:"profiles,omitempty" json:"profiles,omitempty"`
}

// User is one user account.
type User struct {
	ID        string `yaml:"id,omitempty" json:"id,omitempty"`
	Email     string `yaml:"email" json:"email"`
	Username  string `yaml:"username,omitempty" json:"username,omitempty"`
	Domain    string `yaml:"domain,omitempty" json:"domain,omitempty"`
	FirstName string `yaml:"firstname,omitempty" json:"firstname,omitempty"`
	LastName  string `yaml:"lastname,omitempty" json:"lastname,omitempty"`
	Country   string `yaml:"country,omitempty" json:"country,omitempty"`
	// Type is vendorID, enterpriseID, federatedID or unknown.
	Type string `yaml:"type" json:"type"`
	// Status is active (default), disabled, locked or removed.
	Status string `yaml:"status,omitempty" json:"status,omitempty"`
	// TechnicalAccount users count in X-Total-Count but are left out of
	// listing bodies.
	TechnicalAccount bool `yaml:"technicalAccount,omitempty" json:"technicalAccount,omitempty"`
	// Groups are the direct memberships: user groups, product profiles and
	// admin groups.
	Groups []string `yaml:"groups,omitempty" json:"groups,omitempty"`
}

// Invite is an invitation of an independent ID; Groups are the
// memberships granted when it is accepted.
type Invite struct {
	Email       string           `yaml:"email" json:"email"`
	InviteCode  string           `yaml:"inviteCode,omitempty" json:"inviteCode,omitempty"`
	LastSentDTS int64            `yaml:"lastSentDTS" json:"lastSentDTS"` // ms since the epoch
	InvitedBy   umwire.InvitedBy `yaml:"invitedBy,omitempty" json:"invitedBy,omitempty"`
	FirstName   string           `yaml:"firstname,omitempty" json:"firstname,omitempty"`
	LastName    string           `yaml:"lastname,omitempty" json:"lastname,omitempty"`
	Country     string           `yaml:"country,omitempty" json:"country,omitempty"`
	Groups      []string         `yaml:"groups,omitempty" json:"groups,omitempty"`
}

// LoadState reads a seed file of one organization (YAML, or JSON, which
// YAML includes) and checks it. Errors name the file, the line and the
// field; every problem is reported at once. Certificate files are read
// relative to the seed file. A seed of several organizations (orgs:) is
// read by LoadSeed.
func LoadState(path string) (*State, error) {
	data, root, err := readSeed(path)
	if err != nil {
		return nil, err
	}
	var st State
	if err := decodeStrict(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := readCertificates(&st, filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, probs := build(&st); len(probs) > 0 {
		return nil, probs.withLines(path, root)
	}
	return &st, nil
}

// readSeed reads a seed file and parses it into a node tree; root is its
// top-level node.
func readSeed(path string) (data []byte, root *yaml.Node, err error) {
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the state file: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("%s: empty state file, want at least org.id", path)
	}
	return data, doc.Content[0], nil
}

// decodeStrict decodes data into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// readCertificates fills in the certificates the integrations name by file,
// relative to dir.
func readCertificates(st *State, dir string) error {
	for i := range st.Integrations {
		in := &st.Integrations[i]
		if in.CertificateFile == "" || in.Certificate != "" {
			continue
		}
		p := in.CertificateFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("integrations[%d].certificateFile: %w", i, err)
		}
		in.Certificate = string(b)
	}
	return nil
}

// SaveState writes the current state to path atomically (a temporary file
// in the same directory, then a rename): JSON when the name ends in .json,
// YAML otherwise.
func (s *Server) SaveState(path string) error { return save(path, s.Snapshot()) }

// save writes v to path atomically as JSON or YAML (see SaveState).
func save(path string, v any) error {
	var data []byte
	var err error
	if strings.EqualFold(filepath.Ext(path), ".json") {
		data, err = json.MarshalIndent(v, "", "  ")
	} else {
		data, err = yaml.Marshal(v)
	}
	if err == nil {
		err = atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	if err != nil {
		return fmt.Errorf("umsim: save %s: %w", path, err)
	}
	return nil
}
