package admin

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/target/umwire"
)

// open opens organization name of the multi-organization example, served
// by the simulator over loopback HTTP until the test ends.
func open(t *testing.T, name string) (*Org, error) {
	t.Helper()
	d, err := demo.Start(context.Background(), demo.Examples()["multiorg"], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	cfg, err := config.Load(d.Config)
	if err != nil {
		t.Fatal(err)
	}
	return Open(cfg, zap.NewNop(), "--org", name)
}

// TestCallsReachTheNamedOrganization: the users, one user, a group's
// members, the invites and the products come from the organization named.
func TestCallsReachTheNamedOrganization(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o, err := open(t, "emea")
	if err != nil {
		t.Fatal(err)
	}
	users, err := o.Users(ctx, "")
	if err != nil || len(users) == 0 || !hasUser(users, "oscar@example.com") || hasUser(users, "alice@example.com") {
		t.Fatalf("users of emea: %v, %v", users, err)
	}
	design, err := o.Users(ctx, "Design")
	if err != nil || !hasUser(design, "frank@example.com") || hasUser(design, "admin-emea@example.com") {
		t.Errorf("members of Design: %v, %v", design, err)
	}
	u, err := o.User(ctx, "frank@example.com", "")
	if err != nil || u.LastName != "Fuller" {
		t.Errorf("frank: %+v, %v", u, err)
	}
	if _, err := o.Invites(ctx, true); err != nil {
		t.Errorf("invites: %v", err)
	}
	if _, err := o.Products(ctx); err != nil {
		t.Errorf("products: %v", err)
	}
}

// TestInviteSaysWhatToDo: an invite that is not pending is refused with
// what to do instead; an action that is neither resend nor revoke is an
// error, and nothing is sent.
func TestInviteSaysWhatToDo(t *testing.T) {
	t.Parallel()
	o, err := open(t, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Invite(context.Background(), "resend", "nobody@example.com")
	if err == nil || !strings.Contains(err.Error(), "orgsync sync` invites a user of a source again") {
		t.Errorf("resend of no invite: %v", err)
	}
	if done, err := o.Invite(context.Background(), "remove", "alice@example.com"); err == nil || done != "" {
		t.Errorf("unknown action: %q, %v", done, err)
	}
}

// TestOpenNamesTheOrganizations: an unknown organization is refused with
// the names the configuration has.
func TestOpenNamesTheOrganizations(t *testing.T) {
	t.Parallel()
	if _, err := open(t, "apac"); err == nil || !strings.Contains(err.Error(), "main, emea") {
		t.Errorf("unknown organization: %v", err)
	}
}

func hasUser(users []umwire.User, email string) bool {
	for _, u := range users {
		if u.Email == email {
			return true
		}
	}
	return false
}
