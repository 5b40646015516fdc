package view

import (
	"bytes"
	"errors"
	"testing"

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
	var b bytes.Buffer
	if err := PlanJSON(&b, formattest.Plan(), sampleReading); err != nil {
		t.Fatal(err)
	}
	formattest.Current(t, "plan.json", PlanFormatVersion, b.Bytes())
}

// TestGoldenJSONPlans: and of the plans of several organizations, one of
// which failed.
func TestGoldenJSONPlans(t *testing.T) {
	p := formattest.Plan()
	c := p.Counts()
	empty := &reconcile.Plan{}
	c0 := empty.Counts()
	out := struct {
		FormatVersion int           `json:"formatVersion"`
		Organizations []orgPlanJSON `json:"organizations"`
	}{FormatVersion: PlanFormatVersion, Organizations: []orgPlanJSON{
		{Name: "emea", OrgID: "1234ABCD@AdobeOrg", Counts: &c, Read: sampleReading, Plan: p},
		{Name: "amer", OrgID: "5678EFAB@AdobeOrg", Counts: &c0, Plan: empty},
		{Name: "apac", OrgID: "9ABCDEF0@AdobeOrg", Error: errors.New("sign-in: the service refused the credentials (401)").Error()},
	}}
	var b bytes.Buffer
	if err := indentedJSON(&b, out); err != nil {
		t.Fatal(err)
	}
	formattest.Current(t, "plans.json", PlanFormatVersion, b.Bytes())
}
