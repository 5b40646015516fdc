package google

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNextPageToken(t *testing.T) {
	for body, want := range map[string]string{
		`{"kind":"k","users":[{"id":"1","nextPageToken":"inner"}],"nextPageToken":"abc"}`: "abc",
		`{"nextPageToken":"first","users":[]}`:                                            "first",
		`{"kind":"admin#directory#users","etag":"\"e\""}`:                                 "",
		`{}`: "",
	} {
		if got, err := nextPageToken([]byte(body)); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", body, got, err, want)
		}
	}
	for _, bad := range []string{`[]`, ``, `{"nextPageToken":`, `"x"`} {
		if _, err := nextPageToken([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestAttrTakesThePrimaryElement(t *testing.T) {
	var u map[string]any
	_ = json.Unmarshal([]byte(`{"primaryEmail":"a@x","name":{"givenName":"A"},
		"addresses":[{"countryCode":"DE"},{"countryCode":"US","primary":true}],
		"organizations":[{"department":"Sales"}],"emails":[],
		"customSchemas":{"Employment":{"costCenter":"CC1","levels":[3,4]}}}`), &u)
	for path, want := range map[string]string{"primaryEmail": "a@x", "name.givenName": "A", "addresses.countryCode": "US",
		"organizations.department": "Sales", "emails.address": "", "customSchemas.Employment.costCenter": "CC1",
		"customSchemas.Employment.levels": "3", "name": "", "missing.x": "", "primaryEmail.x": ""} {
		if got := attr(u, path); got != want {
			t.Errorf("attr(%q) = %q, want %q", path, got, want)
		}
	}
}

// FuzzPage: no answer body makes the page reading panic, and a token
// found is the body's own nextPageToken.
func FuzzPage(f *testing.F) {
	for _, s := range []string{`{"users":[{"id":"1","name":{"givenName":"A"}}],"nextPageToken":"t"}`, `{"members":[{"id":"1","type":"USER"}]}`, `[`, `{"nextPageToken":1}`} {
		f.Add(s, "name.givenName")
	}
	f.Fuzz(func(t *testing.T, body, path string) {
		tok, err := nextPageToken([]byte(body))
		var p struct {
			NextPageToken any `json:"nextPageToken"`
		}
		if err == nil && tok != "" && json.Unmarshal([]byte(body), &p) == nil {
			if s, ok := p.NextPageToken.(string); ok && s != tok && !strings.ContainsRune(body, '\\') {
				t.Errorf("token %q, the body says %q", tok, s)
			}
		}
		var u map[string]any
		if json.Unmarshal([]byte(body), &u) == nil {
			_ = attr(u, path)
		}
	})
}
