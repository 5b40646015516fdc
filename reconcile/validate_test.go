package reconcile

import "testing"

func TestCheckEmail(t *testing.T) {
	good := []string{"a@b.com", "first.last+tag@example.co.uk", "x@y"}
	bad := []string{"", "nobody", "@example.com", "a@", "a b@example.com",
		"averyveryveryveryveryveryveryverylonglocalpart@example-domain.com"}
	for _, e := range good {
		if err := CheckEmail(e); err != nil {
			t.Errorf("CheckEmail(%q) = %v, want nil", e, err)
		}
	}
	for _, e := range bad {
		if CheckEmail(e) == nil {
			t.Errorf("CheckEmail(%q) = nil, want an error", e)
		}
	}
}

func TestIsCountryCode(t *testing.T) {
	for c, want := range map[string]bool{"US": true, "DE": true, "GB": true, "us": false, "UK": false, "XX": false, "": false, "USA": false} {
		if got := IsCountryCode(c); got != want {
			t.Errorf("IsCountryCode(%q) = %v, want %v", c, got, want)
		}
	}
	if n := len(countryCodes); n != 249 {
		t.Errorf("have %d ISO 3166-1 alpha-2 codes, want 249", n)
	}
}

func TestUserKey(t *testing.T) {
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
