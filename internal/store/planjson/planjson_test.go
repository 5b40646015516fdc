package planjson

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/orgsync/orgsync/internal/store/formattest"
	"github.com/orgsync/orgsync/reconcile"
)

// A plan with one of everything goes into this form and back as it was,
// through its JSON.
func TestPlanRoundTrip(t *testing.T) {
	t.Parallel()
	want := formattest.Plan()
	b, err := json.Marshal(FromPlan(want))
	if err != nil {
		t.Fatal(err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.Core(); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v\nJSON %s", got, want, b)
	}
}

// The lists keep null apart from empty, and a kind the core does not
// know is kept for reconcile.Plan.Check to refuse; a field this version
// does not know is passed over.
func TestListsNullEmptyAndUnknown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		json string
		want Changes
	}{
		{`null`, nil},
		{`[]`, Changes{}},
		{`[{"kind":"rename","user":{"type":"enterpriseID","email":"a@example.com"},"later":1}]`,
			Changes{{Kind: "rename", User: reconcile.User{Type: reconcile.EnterpriseID, Email: "a@example.com"}}}},
	} {
		var got Changes
		if err := json.Unmarshal([]byte(tc.json), &got); err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s read as %#v, want %#v", tc.json, got, tc.want)
		}
		if b, _ := json.Marshal(got); tc.json != `[{"kind":"rename","user":{"type":"enterpriseID","email":"a@example.com"},"later":1}]` && string(b) != tc.json {
			t.Errorf("%s written back as %s", tc.json, b)
		}
	}
	for _, bad := range []string{`{"kind":"remove"}`, `[{"kind":1}]`, `"remove"`} {
		var got Changes
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s read as %#v, want an error", bad, got)
		}
	}
}

// The form holds no type of the core but through its lists.
func TestNoCoreTypes(t *testing.T) {
	t.Parallel()
	formattest.NoCoreTypes(t, Plan{})
	formattest.NoCoreTypes(t, Change{})
}
