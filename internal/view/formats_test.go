package view

import (
	"bytes"
	"errors"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/internal/store/formattest"
	"github.com/orgsync/orgsync/reconcile"
)

// sampleReading is how an incremental run read its organization.
var sampleReading = &run.Reading{Kind: incremental.Incremental, Reason: "last full read 3h ago, next in 21h"}

// TestGoldenJSONPlan: what today's code writes of a plan (plan --output
// json, one organization) is the golden file of its current version.
func TestGoldenJSONPlan(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := PlanJSON(&b, formattest.Plan(), sampleReading); err != nil {
		t.Fatal(err)
	}
	formattest.Current(t, "plan.json", PlanFormatVersion, b.Bytes())
}

// TestGoldenJSONPlans: and of the plans of several organizations, one of
// which failed.
func TestGoldenJSONPlans(t *testing.T) {
	t.Parallel()
	org := func(name, id string) *config.NamedTarget {
		return &config.NamedTarget{Name: name, Target: config.Target{OrgID: id}}
	}
	out := plansJSON{FormatVersion: PlanFormatVersion}
	for _, p := range []*run.OrgPlan{
		{Org: org("emea", "1234ABCD@AdobeOrg"), Plan: formattest.Plan(), Read: *sampleReading},
		{Org: org("amer", "5678EFAB@AdobeOrg"), Plan: &reconcile.Plan{}},
		{Org: org("apac", "9ABCDEF0@AdobeOrg"), Err: errors.New("sign-in: the service refused the credentials (401)")},
	} {
		o, err := newOrgPlanJSON(p)
		if err != nil {
			t.Fatal(err)
		}
		out.Organizations = append(out.Organizations, o)
	}
	var b bytes.Buffer
	if err := indentedJSON(&b, out); err != nil {
		t.Fatal(err)
	}
	formattest.Current(t, "plans.json", PlanFormatVersion, b.Bytes())
}

// TestJSONPlanHoldsNoCoreType: the JSON plan's format holds no type of
// the core's (the plan goes through planjson).
func TestJSONPlanHoldsNoCoreType(t *testing.T) {
	t.Parallel()
	formattest.NoCoreTypes(t, planJSON{})
	formattest.NoCoreTypes(t, plansJSON{})
}

// TestJSONPlanDocumented: the manual names every field of the JSON plan,
// of one organization and of several, and its version.
func TestJSONPlanDocumented(t *testing.T) {
	t.Parallel()
	docs := formattest.Section(t, "../../docs/commands.md", "### The JSON plan")
	formattest.FieldsDocumented(t, docs, PlanFormatVersion, "plan.json", "plans.json")
	formattest.VersionDocumented(t, "../../docs/change-control.md", "`plan --output json`", PlanFormatVersion)
}
