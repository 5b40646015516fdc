package umwire

import (
	"strings"
	"testing"
)

// The specification's own statements and examples for the user-information
// fields: "Valid email, max 60 chars", "an email address (UID and domain
// part)", names of "Max 250 chars", "Valid ISO 2 upper-case country code",
// and the organization id "<hex>@VendorOrg, where the prefix before the @
// is a hexadecimal number".

func TestCheckEmail(t *testing.T) {
	t.Parallel()
	at60 := strings.Repeat("a", 60-len("@example.com")) + "@example.com"
	good := []string{"a@b.com", "first.last+tag@example.co.uk", "x@y", at60}
	bad := []string{"", "nobody", "@example.com", "a@", "a b@example.com", "b" + at60,
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

func TestCheckName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"":                       true,
		"Jane":                   true,
		strings.Repeat("x", 250): true,
		strings.Repeat("é", 250): true, // characters, not bytes
		strings.Repeat("x", 251): false,
		strings.Repeat("é", 251): false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%d characters) = %v, want ok %v", len([]rune(name)), err, ok)
		}
	}
}

func TestIsCountryCode(t *testing.T) {
	t.Parallel()
	for c, want := range map[string]bool{"US": true, "DE": true, "GB": true, "us": false, "UK": false, "XX": false, "": false, "USA": false} {
		if got := IsCountryCode(c); got != want {
			t.Errorf("IsCountryCode(%q) = %v, want %v", c, got, want)
		}
	}
	if n := len(countryCodes); n != 249 {
		t.Errorf("have %d ISO 3166-1 alpha-2 codes, want 249", n)
	}
}

func TestIsOrgID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"12AB@VendorOrg": true, "C0FFEE@VendorOrg": true, "c0ffee@VendorOrg": true, "0@VendorOrg": true,
		"": false, "12AB": false, "@VendorOrg": false, "XYZ@VendorOrg": false, "12AB@OtherOrg": false,
		"12AB@VendorOrg ": false, "12AB@vendororg": false, "12 AB@VendorOrg": false,
	} {
		if got := IsOrgID(id); got != want {
			t.Errorf("IsOrgID(%q) = %v, want %v", id, got, want)
		}
	}
}
