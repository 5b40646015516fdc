package planfile

import (
	"encoding/json"

	"github.com/orgsync/orgsync/internal/store/planjson"
	"github.com/orgsync/orgsync/reconcile"
)

// orgJSON is an organization's saved plan as the file holds it: its plan
// in planjson's form (the JSON plan's), the names of its settings by the
// setting's word.
type orgJSON struct {
	Name    string            `json:"name"`
	OrgID   string            `json:"orgId"`
	Current string            `json:"currentFingerprint"`
	Plan    *planjson.Plan    `json:"plan"`
	Keys    map[string]string `json:"keys,omitempty"`
}

// MarshalJSON writes o as the saved plan's format has it (orgJSON).
func (o Org) MarshalJSON() ([]byte, error) {
	out := orgJSON{Name: o.Name, OrgID: o.OrgID, Current: o.Current}
	if o.Plan != nil {
		out.Plan = planjson.FromPlan(o.Plan)
	}
	if o.Keys != nil {
		out.Keys = make(map[string]string, len(o.Keys))
		for s, k := range o.Keys {
			out.Keys[string(s)] = k
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads o from the saved plan's format (orgJSON).
func (o *Org) UnmarshalJSON(b []byte) error {
	var in orgJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*o = Org{Name: in.Name, OrgID: in.OrgID, Current: in.Current}
	if in.Plan != nil {
		o.Plan = in.Plan.Core()
	}
	if in.Keys != nil {
		o.Keys = make(map[reconcile.Setting]string, len(in.Keys))
		for s, k := range in.Keys {
			o.Keys[reconcile.Setting(s)] = k
		}
	}
	return nil
}
