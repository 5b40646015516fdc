package umsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// entry is one decoded command entry of an action request. err is set
// when the entry is malformed or breaks a structural rule; then none of
// its steps runs.
type entry struct {
	user, usergroup, requestID, domain string
	useVendorID                        bool
	steps                              []step
	err                                *stepError
}

// step is one decoded step; name says which payload field is set.
type step struct {
	name          string
	create        *umwire.CreateUser
	update        *umwire.Update
	updateCountry bool // the update payload names country
	members       *umwire.Membership
	removeFromOrg *umwire.RemoveFromOrg
	groupInfo     *umwire.UserGroupInfo
}

// stepError is the failure of one entry at one step.
type stepError struct {
	step      int
	code, msg string
}

func stepErr(at int, code, format string, args ...any) *stepError {
	return &stepError{step: at, code: code, msg: fmt.Sprintf(format, args...)}
}

// errMalformedBody is a whole-request failure (contract 2): the body is
// not a JSON array, is empty, or holds more than 10 entries.
var errMalformedBody = errors.New("malformed action body")

// decodeActions decodes an action request body. A whole-request failure
// returns an error wrapping errMalformedBody; problems of single entries
// are left in their entry's err.
func decodeActions(body []byte) ([]entry, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, fmt.Errorf("%w: the body must be a JSON array of command entries", errMalformedBody)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
	}
	switch {
	case len(raws) == 0:
		return nil, fmt.Errorf("%w: the body holds no command entries", errMalformedBody)
	case len(raws) > umwire.MaxEntriesPerRequest:
		return nil, fmt.Errorf("%w: %d command entries, at most %d are allowed per request", errMalformedBody, len(raws), umwire.MaxEntriesPerRequest)
	}
	entries := make([]entry, len(raws))
	for i, raw := range raws {
		entries[i] = decodeEntry(raw)
	}
	return entries, nil
}

// entryFields are the keys a command entry may hold.
var entryFields = []string{"user", "usergroup", "requestID", "domain", "useVendorID", "do"}

// userSteps are the steps of a user entry.
var userSteps = []string{
	umwire.StepAddVendorID, umwire.StepCreateEnterpriseID, umwire.StepCreateFederatedID,
	umwire.StepUpdate, umwire.StepAdd, umwire.StepRemove, umwire.StepRemoveFromOrg,
}

// groupSteps are the steps of a user-group entry.
var groupSteps = []string{
	umwire.StepCreateUserGroup, umwire.StepUpdateUserGroup, umwire.StepDeleteUserGroup,
	umwire.StepAdd, umwire.StepRemove,
}

// decodeEntry decodes one command entry; its problems go to the entry's
// err, keeping requestID and user for the error when they are readable.
func decodeEntry(raw json.RawMessage) entry {
	var e entry
	fields, err := objectFields(raw, entryFields)
	if fields != nil { // also with an unknown field: keep requestID and user for the error
		if ferr := decodeEntryFields(&e, fields); err == nil {
			err = ferr
		}
	}
	if err != nil {
		e.err = stepErr(0, umwire.ErrCommandMalformed, "command entry: %v", err)
		return e
	}
	var raws []json.RawMessage
	if err := decodeValue(fields["do"], &raws); err != nil {
		e.err = stepErr(0, umwire.ErrCommandMalformed, "command entry: do must be an array of steps")
		return e
	}
	if len(raws) == 0 {
		e.err = stepErr(0, umwire.ErrCommandMalformed, "command entry: the do list is empty")
		return e
	}
	if len(raws) > umwire.MaxStepsPerEntry {
		e.err = stepErr(umwire.MaxStepsPerEntry, umwire.ErrTooManySteps, "%d steps, at most %d are allowed per entry", len(raws), umwire.MaxStepsPerEntry)
		return e
	}
	allowed := userSteps
	if e.usergroup != "" {
		allowed = groupSteps
	}
	for i, r := range raws {
		st, serr := decodeStep(r, allowed, e.usergroup != "")
		if serr != nil {
			serr.step = i
			e.err = serr
			return e
		}
		e.steps = append(e.steps, st)
	}
	e.err = checkStructure(e.steps, e.usergroup != "")
	return e
}

// decodeEntryFields decodes the fields of an entry other than do. Every
// field that can be decoded is kept (requestID and user go into the
// entry's error); the first problem is returned.
func decodeEntryFields(e *entry, f map[string]json.RawMessage) error {
	var first error
	for _, s := range []struct {
		name string
		dst  *string
	}{{"user", &e.user}, {"usergroup", &e.usergroup}, {"requestID", &e.requestID}, {"domain", &e.domain}} {
		if raw, ok := f[s.name]; ok && decodeValue(raw, s.dst) != nil && first == nil {
			first = fmt.Errorf("%s must be a string", s.name)
		}
	}
	if raw, ok := f["useVendorID"]; ok && decodeValue(raw, &e.useVendorID) != nil && first == nil {
		first = errors.New("useVendorID must be true or false")
	}
	if first != nil {
		return first
	}
	if (e.user == "") == (e.usergroup == "") {
		return errors.New("give exactly one of user and usergroup")
	}
	if _, ok := f["do"]; !ok {
		return errors.New("the do list is missing")
	}
	return nil
}

// objectFields decodes raw as a JSON object whose keys must all be in
// allowed (exact spelling). With an unknown key it returns the fields
// together with the error; when raw is not an object, nil.
func objectFields(raw json.RawMessage, allowed []string) (map[string]json.RawMessage, error) {
	fields, ok := jsonObject(raw)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	keys := slices.Sorted(maps.Keys(fields)) // the same key named every time
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fields, fmt.Errorf("unknown field %q (allowed: %s)", k, strings.Join(allowed, ", "))
		}
	}
	return fields, nil
}

// jsonObject decodes raw as a JSON object (not null); false when it is
// not one.
func jsonObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, false
	}
	return m, true
}

// decodeValue decodes a non-null JSON value into v.
func decodeValue(raw json.RawMessage, v any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return errors.New("null")
	}
	return json.Unmarshal(raw, v)
}

// decodeObject decodes raw into v after checking its keys.
func decodeObject(raw json.RawMessage, allowed []string, v any) error {
	if _, err := objectFields(raw, allowed); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("field %s has the wrong type", te.Field)
		}
		return err
	}
	return nil
}

var (
	createFields        = []string{"email", "country", "firstname", "lastname", "option"}
	updateFields        = []string{"email", "firstname", "lastname", "username", "country"}
	userMemberFields    = []string{"group"}
	groupMemberFields   = []string{"user", "productConfiguration"}
	removeFromOrgFields = []string{"deleteAccount"}
	createGroupFields   = []string{"name", "description", "option"}
	updateGroupFields   = []string{"name", "description"}
)

// decodeStep decodes one step object; the returned error's step index is
// set by the caller.
func decodeStep(raw json.RawMessage, allowed []string, groupEntry bool) (step, *stepError) {
	m, ok := jsonObject(raw)
	if !ok || len(m) != 1 {
		return step{}, stepErr(0, umwire.ErrCommandMalformed, "a step must be an object with exactly one step name")
	}
	var st step
	var payload json.RawMessage
	for st.name, payload = range m {
	}
	if !slices.Contains(allowed, st.name) {
		return st, stepErr(0, umwire.ErrStepUnknown, "unknown step %q (allowed here: %s)", st.name, strings.Join(allowed, ", "))
	}
	if err := decodePayload(&st, payload, groupEntry); err != nil {
		return st, stepErr(0, umwire.ErrCommandMalformed, "step %s: %v", st.name, err)
	}
	return st, nil
}

// decodePayload decodes a step's payload by its name, allowing only the
// fields that step has.
func decodePayload(st *step, payload json.RawMessage, groupEntry bool) error {
	switch st.name {
	case umwire.StepAddVendorID, umwire.StepCreateEnterpriseID, umwire.StepCreateFederatedID:
		st.create = &umwire.CreateUser{}
		return decodeObject(payload, createFields, st.create)
	case umwire.StepUpdate:
		fields, err := objectFields(payload, updateFields)
		if err != nil {
			return err
		}
		_, st.updateCountry = fields["country"]
		st.update = &umwire.Update{}
		return decodeObject(payload, updateFields, st.update)
	case umwire.StepAdd, umwire.StepRemove:
		return decodeMembers(st, payload, groupEntry)
	case umwire.StepRemoveFromOrg:
		st.removeFromOrg = &umwire.RemoveFromOrg{}
		return decodeObject(payload, removeFromOrgFields, st.removeFromOrg)
	case umwire.StepCreateUserGroup:
		st.groupInfo = &umwire.UserGroupInfo{}
		return decodeObject(payload, createGroupFields, st.groupInfo)
	case umwire.StepUpdateUserGroup:
		st.groupInfo = &umwire.UserGroupInfo{}
		return decodeObject(payload, updateGroupFields, st.groupInfo)
	default: // deleteUserGroup
		return decodeObject(payload, nil, &umwire.DeleteUserGrp{})
	}
}

// decodeMembers decodes add and remove: {group:[…]} or "all" (remove) on
// user entries, {user:[…], productConfiguration:[…]} on user-group entries.
func decodeMembers(st *step, payload json.RawMessage, groupEntry bool) error {
	st.members = &umwire.Membership{}
	if string(bytes.TrimSpace(payload)) == `"all"` {
		if groupEntry || st.name != umwire.StepRemove {
			return errors.New(`"all" is only allowed in remove on a user entry`)
		}
		st.members.All = true
		return nil
	}
	allowed := userMemberFields
	if groupEntry {
		allowed = groupMemberFields
	}
	var raw struct {
		Group   []string `json:"group"`
		User    []string `json:"user"`
		Profile []string `json:"productConfiguration"`
	}
	if err := decodeObject(payload, allowed, &raw); err != nil {
		return err
	}
	fields, _ := objectFields(payload, allowed)
	if len(fields) == 0 {
		return fmt.Errorf("give %s", strings.Join(allowed, " or "))
	}
	st.members.Group, st.members.Users, st.members.ProductConfigurations = raw.Group, raw.User, raw.Profile
	return nil
}

// checkStructure applies the rules on the steps of one entry that hold
// before anything runs (specification rules 3, 9, 10; contract 5).
func checkStructure(steps []step, groupEntry bool) *stepError {
	creates, adds, removes := 0, 0, 0
	last := len(steps) - 1
	for i, st := range steps {
		switch {
		case st.create != nil || st.name == umwire.StepCreateUserGroup:
			creates++
			if creates > 1 {
				return stepErr(i, umwire.ErrCreateMoreThanOne, "an entry may hold only one create step")
			}
			if i != 0 {
				return stepErr(i, umwire.ErrCreateNotFirst, "the create step must be the first step")
			}
		case st.name == umwire.StepRemoveFromOrg && i != last:
			return stepErr(i, umwire.ErrRemoveNotLast, "removeFromOrg must be the last step")
		case st.name == umwire.StepDeleteUserGroup && i != last:
			return stepErr(i, umwire.ErrCommandMalformed, "deleteUserGroup ends the entry; it must be the last step")
		case st.members != nil && groupEntry:
			if n := len(st.members.Users) + len(st.members.ProductConfigurations); n > umwire.MaxMembershipsPerStep {
				return stepErr(i, umwire.ErrListTooLong, "%d names in one step, at most %d are allowed", n, umwire.MaxMembershipsPerStep)
			}
		case st.members != nil:
			what, n := "added", &adds
			if st.name == umwire.StepRemove {
				what, n = "removed", &removes
			}
			*n += len(st.members.Group)
			if *n > umwire.MaxMembershipsPerStep {
				return stepErr(i, umwire.ErrListTooLong, "more than %d memberships %s in one entry", umwire.MaxMembershipsPerStep, what)
			}
		}
	}
	return nil
}
