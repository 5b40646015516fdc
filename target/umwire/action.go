package umwire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Step names of user entries and user-group entries.
const (
	StepAddVendorID        = "addVendorID"
	StepCreateEnterpriseID = "createEnterpriseID"
	StepCreateFederatedID  = "createFederatedID"
	StepUpdate             = "update"
	StepAdd                = "add"
	StepRemove             = "remove"
	StepRemoveFromOrg      = "removeFromOrg"
	StepCreateUserGroup    = "createUserGroup"
	StepUpdateUserGroup    = "updateUserGroup"
	StepDeleteUserGroup    = "deleteUserGroup"
)

// Values of the create steps' option.
const (
	OptionIgnoreIfExists = "ignoreIfAlreadyExists"
	OptionUpdateIfExists = "updateIfAlreadyExists"
)

// Entry is one command entry of the action request body: exactly one of
// User and UserGroup is set.
type Entry struct {
	User        string `json:"user,omitempty"`
	UserGroup   string `json:"usergroup,omitempty"`
	RequestID   string `json:"requestID,omitempty"`
	Domain      string `json:"domain,omitempty"`
	UseVendorID bool   `json:"useVendorID,omitempty"`
	Do          []Step `json:"do"`
}

// Step is one step of an entry's do list. Exactly one field is set; it
// encodes as a one-key object, e.g. {"add":{"group":["A"]}} or
// {"remove":"all"}.
type Step struct {
	AddVendorID        *CreateUser    `json:"addVendorID,omitempty"`
	CreateEnterpriseID *CreateUser    `json:"createEnterpriseID,omitempty"`
	CreateFederatedID  *CreateUser    `json:"createFederatedID,omitempty"`
	Update             *Update        `json:"update,omitempty"`
	Add                *Membership    `json:"add,omitempty"`
	Remove             *Membership    `json:"remove,omitempty"`
	RemoveFromOrg      *RemoveFromOrg `json:"removeFromOrg,omitempty"`
	CreateUserGroup    *UserGroupInfo `json:"createUserGroup,omitempty"`
	UpdateUserGroup    *UserGroupInfo `json:"updateUserGroup,omitempty"`
	DeleteUserGroup    *DeleteUserGrp `json:"deleteUserGroup,omitempty"`
}

// CreateUser is the payload of addVendorID, createEnterpriseID and
// createFederatedID.
type CreateUser struct {
	Email     string `json:"email,omitempty"`
	Country   string `json:"country,omitempty"`
	FirstName string `json:"firstname,omitempty"`
	LastName  string `json:"lastname,omitempty"`
	Option    string `json:"option,omitempty"`
}

// Update is the payload of update; nil fields stay unchanged.
type Update struct {
	Email     *string `json:"email,omitempty"`
	FirstName *string `json:"firstname,omitempty"`
	LastName  *string `json:"lastname,omitempty"`
	Username  *string `json:"username,omitempty"`
}

// Membership is the payload of add and remove. A user entry uses Group; a
// user-group entry uses Users and ProductConfigurations. All is the string
// form "all" of remove on a user entry.
type Membership struct {
	Group                 []string `json:"group,omitempty"`
	Users                 []string `json:"user,omitempty"`
	ProductConfigurations []string `json:"productConfiguration,omitempty"`
	All                   bool     `json:"-"`
}

// RemoveFromOrg is the payload of removeFromOrg.
type RemoveFromOrg struct {
	DeleteAccount bool `json:"deleteAccount"`
}

// UserGroupInfo is the payload of createUserGroup and updateUserGroup.
type UserGroupInfo struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Option      string `json:"option,omitempty"`
}

// DeleteUserGrp is the empty payload of deleteUserGroup.
type DeleteUserGrp struct{}

// allJSON is the string form of remove-all.
const allJSON = `"all"`

// MarshalJSON encodes remove-all as the string "all".
func (m Membership) MarshalJSON() ([]byte, error) {
	if m.All {
		return []byte(allJSON), nil
	}
	type plain Membership
	return json.Marshal(plain(m))
}

// UnmarshalJSON accepts the string "all" or the object form.
func (m *Membership) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == allJSON {
		*m = Membership{All: true}
		return nil
	}
	type plain Membership
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = Membership(p)
	return nil
}

// Name returns the name of the step that is set, or "" for an empty step.
func (s Step) Name() string {
	switch {
	case s.AddVendorID != nil:
		return StepAddVendorID
	case s.CreateEnterpriseID != nil:
		return StepCreateEnterpriseID
	case s.CreateFederatedID != nil:
		return StepCreateFederatedID
	case s.Update != nil:
		return StepUpdate
	case s.Add != nil:
		return StepAdd
	case s.Remove != nil:
		return StepRemove
	case s.RemoveFromOrg != nil:
		return StepRemoveFromOrg
	case s.CreateUserGroup != nil:
		return StepCreateUserGroup
	case s.UpdateUserGroup != nil:
		return StepUpdateUserGroup
	case s.DeleteUserGroup != nil:
		return StepDeleteUserGroup
	}
	return ""
}

// IsCreate reports whether the step is one of the three user create steps.
func (s Step) IsCreate() bool {
	return s.AddVendorID != nil || s.CreateEnterpriseID != nil || s.CreateFederatedID != nil
}

// Validate checks that exactly one step kind is set.
func (s Step) Validate() error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if len(keys) != 1 {
		return fmt.Errorf("umwire: a step must set exactly one kind, it sets %d", len(keys))
	}
	return nil
}

// ActionResponse is the body of a 200 from the action endpoint (contract 2).
type ActionResponse struct {
	Completed           int             `json:"completed"`
	NotCompleted        int             `json:"notCompleted"`
	CompletedInTestMode int             `json:"completedInTestMode"`
	Result              string          `json:"result"`
	Errors              []ActionError   `json:"errors,omitempty"`
	Warnings            []ActionWarning `json:"warnings,omitempty"`
}

// ActionError reports the failing step of one entry.
type ActionError struct {
	Index     int    `json:"index"`
	Step      int    `json:"step"`
	RequestID string `json:"requestID,omitempty"`
	User      string `json:"user,omitempty"`
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode"`
}

// ActionWarning is a non-fatal remark on one entry.
type ActionWarning struct {
	Index       int    `json:"index"`
	Step        int    `json:"step"`
	RequestID   string `json:"requestID,omitempty"`
	User        string `json:"user,omitempty"`
	Message     string `json:"message"`
	WarningCode string `json:"warningCode"`
}
