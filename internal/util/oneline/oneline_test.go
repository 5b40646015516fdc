package oneline

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

// Every kind of the table has its line: its sign and name, and what the
// kind's row says it shows; a kind the table does not know has one too.
func TestEveryKindHasItsLine(t *testing.T) {
	t.Parallel()
	u := reconcile.User{Type: reconcile.EnterpriseID, Email: "a@x.com", FirstName: "A", LastName: "B", Country: "US"}
	want := map[reconcile.Kind]string{
		reconcile.KindCreateGroup:  "+ create-group G",
		reconcile.KindCreate:       `+ create a@x.com (enterpriseID) firstname="A" lastname="B" country="US" groups: +G`,
		reconcile.KindUpdate:       "~ update a@x.com (enterpriseID) groups: +G",
		reconcile.KindResendInvite: "~ resend-invite a@x.com (enterpriseID) groups: +G",
		reconcile.KindInviteGroups: "= invite-groups a@x.com (enterpriseID) groups: +G",
		reconcile.KindRemove:       "- remove a@x.com (enterpriseID) groups: +G",
		reconcile.KindDelete:       "- delete a@x.com (enterpriseID) deleteAccount groups: +G",
		reconcile.KindRevokeInvite: "- revoke-invite a@x.com (enterpriseID) groups: +G",
		"rename":                   "? rename a@x.com (enterpriseID) groups: +G",
	}
	for _, k := range append(reconcile.Kinds(), "rename") {
		c := reconcile.Change{Kind: k, User: u, Group: "G", Add: []string{"G"}}
		if got := Change(&c); got != want[k] {
			t.Errorf("%s: %q, want %q", k, got, want[k])
		}
	}
	first, email := "Jo", "jo@x.com"
	c := reconcile.Change{Kind: reconcile.KindUpdate, User: u, Set: &reconcile.Attrs{FirstName: &first, Email: &email}, Remove: []string{"Old"}}
	if got := Change(&c); got != `~ update a@x.com (enterpriseID) firstname="Jo" email="jo@x.com" groups: -Old` {
		t.Errorf("update: %q", got)
	}
}

// Apply's events, written: the requests of a dry run with their entries,
// the revoke it would send; a real run's requests without their entries.
func TestEventsAsApplyGoes(t *testing.T) {
	t.Parallel()
	p := &reconcile.Plan{UserGroups: []string{"G"}}
	for i := range 11 {
		p.Changes = append(p.Changes, reconcile.Change{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.EnterpriseID,
			Email: fmt.Sprintf("u%02d@x.com", i), FirstName: "U", LastName: "V", Country: "US"}, Add: []string{"G"}})
	}
	p.Changes = append(p.Changes, reconcile.Change{Kind: reconcile.KindRevokeInvite, User: reconcile.User{Type: reconcile.VendorID, Email: "stray@x.com"}})
	var dry, real bytes.Buffer
	if _, err := reconcile.Apply(context.Background(), p, nil, reconcile.ApplyOptions{DryRun: true, Events: Events(&dry)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"would send request 1/2 (10 entries)\n  user u00@x.com: create; add [G]\n", "would send request 2/2 (1 entry)\n  user u10@x.com: create; add [G]\n",
		"would revoke-invite stray@x.com (invite endpoints have no test mode)\n"} {
		if !strings.Contains(dry.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry.String())
		}
	}
	if _, err := reconcile.Apply(context.Background(), p, nopSender{}, reconcile.ApplyOptions{Events: Events(&real)}); err != nil {
		t.Fatal(err)
	}
	if got := real.String(); got != "sending request 1/2 (10 entries)\nsending request 2/2 (1 entry)\nrevoke-invite stray@x.com\n" {
		t.Errorf("real run wrote %q", got)
	}
}

type nopSender struct{}

func (nopSender) Send(context.Context, reconcile.Request, bool) ([]reconcile.EntryFailure, error) {
	return nil, nil
}
func (nopSender) RevokeInvite(context.Context, string) error { return nil }
