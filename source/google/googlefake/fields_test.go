package googlefake

import (
	"encoding/json"
	"testing"
	"time"
)

func TestMask(t *testing.T) {
	t.Parallel()
	user := map[string]any{"id": "1", "primaryEmail": "a@example.com", "name": map[string]any{"givenName": "A", "familyName": "B"},
		"addresses": []any{map[string]any{"countryCode": "US", "type": "work"}}}
	list := map[string]any{"kind": "admin#directory#users", "nextPageToken": "x", "users": []any{user}}
	for _, c := range []struct{ fields, want, bad string }{
		{"nextPageToken,users(id,name/givenName)", `{"nextPageToken":"x","users":[{"id":"1","name":{"givenName":"A"}}]}`, ""},
		{"users(addresses(countryCode))", `{"users":[{"addresses":[{"countryCode":"US"}]}]}`, ""},
		{"users/primaryEmail,kind", `{"kind":"admin#directory#users","users":[{"primaryEmail":"a@example.com"}]}`, ""},
		{"users(id,mail)", "", "users/mail"},
		{"users(name/nickname)", "", "users/name/nickname"},
		{"people", "", "people"},
	} {
		m, err := parseMask(c.fields)
		if err != nil {
			t.Fatalf("%s: %v", c.fields, err)
		}
		if bad := m.check(listSchema("users", userSchema)); bad != c.bad {
			t.Errorf("%s: invalid %q, want %q", c.fields, bad, c.bad)
		}
		if c.want == "" {
			continue
		}
		got, _ := json.Marshal(m.apply(list))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.fields, got, c.want)
		}
	}
	for _, bad := range []string{"users(id", "users)", "users(,)", "a//b", ""} {
		if _, err := parseMask(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzParseMask: no selection string makes the parser panic or loop.
func FuzzParseMask(f *testing.F) {
	for _, s := range []string{"nextPageToken,users(id,name/givenName)", "a(b(c),d)/e", "((", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := parseMask(s); err == nil {
			_ = m.check(userSchema)
			_ = m.apply(map[string]any{"a": []any{map[string]any{"b": 1}}})
		}
	})
}

// FuzzQueryAndPageToken: no query or page token makes the fake panic; a
// page token it made gives back its offset, for its own listing only.
func FuzzQueryAndPageToken(f *testing.F) {
	for _, s := range []string{"orgUnitPath='/Staff' isAdmin=true", "name:app*", "email='a", "=x", "givenName=Bob"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, q string, off int) {
		if match, err := parseQuery(q, userTerms); err == nil {
			u := &User{GivenName: "Bob", OrgUnitPath: "/Staff/Sub"}
			_ = match(func(term string) string { return userTerms[term](u) })
		}
		_, _, _ = offsetOf(q, "key", 10)
		if off < 0 || off > 10 {
			return
		}
		tok := tokenOf(off, "/users?customer=my_customer", time.Unix(1, 2))
		if got, at, ok := offsetOf(tok, "/users?customer=my_customer", 10); !ok || got != off || !at.Equal(time.Unix(1, 2)) {
			t.Errorf("offset %d came back %d, %v", off, got, ok)
		}
		if _, _, ok := offsetOf(tok, "/groups?customer=my_customer", 10); ok {
			t.Error("a users page token was taken for groups")
		}
	})
}
