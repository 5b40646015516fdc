package reconcile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/view"
	"github.com/orgsync/orgsync/reconcile"
)

// TestAKindAddedToTheTableIsHandledEverywhere adds a kind to the table,
// and nothing else: the counts, the JSON counts, the plan's lines and
// summary, the requests, the history's entries and the approvals take it
// from there. (Not parallel: it changes the package's table for its
// length.)
func TestAKindAddedToTheTableIsHandledEverywhere(t *testing.T) {
	const archive = reconcile.Kind("archive-user")
	reconcile.AddKind(t, archive, "-", true, "to archive", 45, 55)
	u := reconcile.User{Type: reconcile.EnterpriseID, Email: "ann@example.com"}
	c := reconcile.Change{Kind: archive, User: u}
	p := &reconcile.Plan{Changes: []reconcile.Change{{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.EnterpriseID,
		Email: "bob@example.com", FirstName: "Bob", LastName: "B", Country: "US"}}, c}}
	if err := p.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}

	counts := p.Counts()
	if counts.Of(archive) != 1 || counts.Of(reconcile.KindCreate) != 1 {
		t.Errorf("counts: %d archived, %d created; want 1 and 1", counts.Of(archive), counts.Of(reconcile.KindCreate))
	}
	data, err := json.Marshal(counts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"delete":0,"archiveUser":1,"resendInvite":0`)) {
		t.Errorf("JSON counts %s: want archiveUser at its place, after delete", data)
	}
	var back reconcile.Counts
	if err := json.Unmarshal(data, &back); err != nil || back.Of(archive) != 1 {
		t.Errorf("JSON counts read back: %v, %d archived", err, back.Of(archive))
	}

	var text bytes.Buffer
	if err := view.Plan(&text, p); err != nil {
		t.Fatalf("view.Plan: %v", err)
	}
	for _, want := range []string{"\n- archive-user ann@example.com (enterpriseID)\n",
		"Plan: 1 to create, 0 to update, 0 to remove, 0 to delete, 1 to archive, +0/-0 memberships, 0 groups to create,"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the plan lacks %q:\n%s", want, text.String())
		}
	}
	if !c.Destructive() || !archive.Info().TakesAway || archive.Info().Sign != "-" {
		t.Errorf("the kind is not destructive as its row says: %+v", archive.Info())
	}

	reqs := p.Batches(reconcile.DefaultLimits())
	sender := &recordingSender{}
	if _, err := reconcile.Apply(context.Background(), p, sender, reconcile.ApplyOptions{Requests: reqs}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !slices.Contains(sender.steps, "ann@example.com "+string(reconcile.StepRemoveFromOrg)) {
		t.Errorf("sent steps %v: want ann's removeFromOrg, as the row's steps say", sender.steps)
	}

	entries := store.Applied{Run: "r1", Org: "main"}.Entries([]reconcile.Change{c}, nil)
	if len(entries) != 1 || entries[0].Kind != string(archive) || !slices.Equal(entries[0].Steps, []string{string(reconcile.StepRemoveFromOrg)}) ||
		entries[0].Result != store.ResultApplied {
		t.Errorf("history entries %+v: want one applied archive-user removing the user from the organization", entries)
	}

	send, held := approval.Quarantine(p.Changes, []reconcile.Change{c})
	if len(held) != 1 || held[0].Kind != archive || len(send) != 1 || send[0].Kind != reconcile.KindCreate {
		t.Errorf("quarantine: sends %v, holds %v; want the archive held whole and the create sent", send, held)
	}
	if kept, dropped := approval.Narrow([]reconcile.Change{c}, &reconcile.Plan{Withheld: []reconcile.Change{c}}); len(kept) != 1 || len(dropped) != 0 {
		t.Errorf("narrowed against a plan still withholding it: kept %v, dropped %v", kept, dropped)
	}
	if kept, dropped := approval.Narrow([]reconcile.Change{c}, &reconcile.Plan{}); len(kept) != 0 || len(dropped) != 1 {
		t.Errorf("narrowed against a plan without it: kept %v, dropped %v", kept, dropped)
	}
	if n := approval.Count(p.Changes); n != 1 {
		t.Errorf("approval.Count = %d destructive changes; want 1", n)
	}
}

// recordingSender notes each step it is sent, as "user step".
type recordingSender struct{ steps []string }

func (s *recordingSender) Send(_ context.Context, req reconcile.Request, _ bool) ([]reconcile.EntryFailure, error) {
	for _, e := range req.Entries {
		for _, st := range e.Steps {
			s.steps = append(s.steps, e.Target()+" "+string(st.Kind))
		}
	}
	return nil, nil
}

func (s *recordingSender) RevokeInvite(context.Context, string) error { return nil }
