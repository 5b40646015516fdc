package umtarget

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// A change kind or a step that the tables do not know is an error, never a
// default action (least of all a removal): over loopback HTTP to the
// simulator, no request reaches the action or invite endpoints and the
// organization is unchanged.
func TestUnknownKindsSendNothing(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	ctx := context.Background()
	pol := policy(reconcile.RemoveUsers)
	plan := e.plan(t, want, pol)
	if plan.Empty() {
		t.Fatal("the seeded plan is empty: the test would prove nothing")
	}
	victim := plan.Changes[0].User
	member := reconcile.User{Type: reconcile.EnterpriseID, Email: victim.Email}
	unknownStep := reconcile.Request{Entries: []reconcile.Entry{
		{User: &member, Steps: []reconcile.Step{{Kind: reconcile.StepAdd, Groups: []string{"G1"}}}},
		{User: &member, Steps: []reconcile.Step{{Kind: "suspend"}}},
	}}
	cases := []struct {
		name string
		send func() error
		want error
	}{
		{"plan with a change of an unknown kind", func() error {
			p := *plan
			p.Changes = append(append([]reconcile.Change(nil), plan.Changes...), reconcile.Change{Kind: "suspend", User: victim})
			_, err := reconcile.Apply(ctx, &p, e.target, reconcile.ApplyOptions{})
			return err
		}, reconcile.ErrUnknownKind},
		{"request with a step of an unknown kind", func() error {
			_, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{Requests: []reconcile.Request{unknownStep}})
			return err
		}, ErrUnknownStep},
		{"user-group step on a user entry", func() error {
			_, err := e.target.Send(ctx, reconcile.Request{Entries: []reconcile.Entry{
				{User: &member, Steps: []reconcile.Step{{Kind: reconcile.StepCreateUserGroup}}}}}, false)
			return err
		}, ErrUnknownStep},
		{"removeFromOrg on a user-group entry", func() error {
			_, err := e.target.Send(ctx, reconcile.Request{Entries: []reconcile.Entry{
				{Group: "G1", Steps: []reconcile.Step{{Kind: reconcile.StepRemoveFromOrg, Users: []reconcile.User{member}}}}}}, false)
			return err
		}, ErrUnknownStep},
		{"create of an unknown identity type", func() error {
			u := reconcile.User{Type: reconcile.UnknownID, Email: "new@example.com"}
			_, err := e.target.Send(ctx, reconcile.Request{Entries: []reconcile.Entry{
				{User: &u, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: &u}}}}}, false)
			return err
		}, ErrUnknownStep},
	}
	for _, tc := range cases {
		before, requests := e.sim.Snapshot(), e.sim.Stats().Total()
		err := tc.send()
		// Apply reports a request that was not sent as its entries'
		// failures, with the reason in their message.
		if err == nil || !errors.Is(err, tc.want) && !strings.Contains(err.Error(), tc.want.Error()) {
			t.Errorf("%s: error %v; want %v", tc.name, err, tc.want)
		}
		if n := e.sim.Stats().Total() - requests; n != 0 {
			t.Errorf("%s: %d requests reached the service; want none", tc.name, n)
		}
		if after := e.sim.Snapshot(); !reflect.DeepEqual(before.Users, after.Users) || !reflect.DeepEqual(before.Invites, after.Invites) {
			t.Errorf("%s: the organization changed", tc.name)
		}
	}
	// The same plan without the unknown kind goes through: the count
	// above can see requests.
	actions := byEndpoint(e.sim.Stats())[gate.EndpointAction]
	if _, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if byEndpoint(e.sim.Stats())[gate.EndpointAction] == actions {
		t.Error("the valid plan sent no action request: the counts prove nothing")
	}
}
