package reconcile

import "testing"

func TestUserKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		u    User
		want string
	}{
		{User{Type: EnterpriseID, Email: "Jo@Example.com"}, "jo@example.com"},
		{User{Type: FederatedID, Email: "Jo@Example.com", Username: "Jo@Example.com"}, "jo@example.com"},
		{User{Type: FederatedID, Email: "jo@example.com", Username: "JSmith", Domain: "Example.com"}, "jsmith@example.com"},
		{User{Type: VendorID, Email: "V@x.org"}, "v@x.org"},
	}
	for _, c := range cases {
		if got := c.u.Key(); got != c.want {
			t.Errorf("%+v.Key() = %q, want %q", c.u, got, c.want)
		}
	}
}
