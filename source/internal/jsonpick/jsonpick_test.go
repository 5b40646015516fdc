package jsonpick

import (
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// multi marks Google's custom schema fields multi-valued, as the google
// source does.
func multi(path string) bool {
	return strings.HasPrefix(path, "customSchemas.") && strings.Count(path, ".") == 2
}

// attr is the reference reading of a user's attribute from the whole
// user decoded as a map: the value at path, a list on the way giving its
// element marked primary (else its first), a list at the end its first
// value, but a custom schema field all its values (of scalars or of
// {"value"} objects) joined by commas. The extractor must read the same.
func attr(obj map[string]any, path string) string {
	parts := strings.Split(path, ".")
	if len(parts) == 3 && parts[0] == "customSchemas" {
		if s, ok := obj[parts[0]].(map[string]any)[parts[1]].(map[string]any); ok {
			if list, ok := s[parts[2]].([]any); ok {
				var vals []string
				for _, e := range list {
					if m, ok := e.(map[string]any); ok {
						e = m["value"]
					}
					if _, nested := e.([]any); !nested {
						if v := restapi.Attr(map[string]any{"v": e}, "v"); v != "" {
							vals = append(vals, v)
						}
					}
				}
				return strings.Join(vals, ",")
			}
		}
	}
	for _, key := range parts[:len(parts)-1] {
		next, ok := primary(obj[key]).(map[string]any)
		if !ok {
			return ""
		}
		obj = next
	}
	return restapi.Attr(obj, parts[len(parts)-1])
}

// values is the reference reading of every value of a user's attribute:
// through a list on the way each element that is an object, a list at
// the end each scalar (and, of a custom schema field, each object's
// "value"), a scalar inside a list; empty values left out; nil when no
// list holds a value.
func values(obj map[string]any, path string) []string {
	var out []string
	var walk func(v any, parts []string, inList bool)
	walk = func(v any, parts []string, inList bool) {
		if len(parts) == 0 {
			switch v := v.(type) {
			case []any:
				for _, e := range v {
					if m, ok := e.(map[string]any); ok && multi(path) {
						e = m["value"]
					}
					out = appendText(out, e)
				}
			default:
				if inList {
					out = appendText(out, v)
				}
			}
			return
		}
		switch v := v.(type) {
		case map[string]any:
			walk(v[parts[0]], parts[1:], inList)
		case []any:
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					walk(m[parts[0]], parts[1:], true)
				}
			}
		}
	}
	walk(obj, strings.Split(path, "."), false)
	return out
}

// appendText appends a scalar's text (as restapi.Attr gives it), unless
// it is empty or not a scalar.
func appendText(out []string, v any) []string {
	switch v.(type) {
	case []any, map[string]any:
		return out
	}
	if s := restapi.Attr(map[string]any{"v": v}, "v"); s != "" {
		out = append(out, s)
	}
	return out
}

func primary(v any) any {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return v
	}
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && m["primary"] == true {
			return m
		}
	}
	return list[0]
}

// extract reads the users page body with the extractor of paths: each
// user's value and values of each path.
func extract(body string, paths []string) ([]map[string]string, []map[string][]string, error) {
	var out []map[string]string
	var all []map[string][]string
	err := New(paths, multi).Records(strings.NewReader(body), "users", func(r *Record) {
		m, vs := map[string]string{}, map[string][]string{}
		for _, p := range paths {
			m[p], vs[p] = r.Get(p), r.Values(p)
		}
		out, all = append(out, m), append(all, vs)
	})
	return out, all, err
}

func TestExtractorTakesThePrimaryElement(t *testing.T) {
	t.Parallel()
	user := `{"primaryEmail":"a@x","name":{"givenName":"A"},
		"addresses":[{"countryCode":"DE"},{"countryCode":"US","primary":true},{"countryCode":"FR","primary":true}],
		"organizations":[{"department":"Sales"}],"emails":[],"phones":["x",{"value":"1","primary":true}],
		"customSchemas":{"Employment":{"costCenter":"CC1","levels":[3,4.5e1],"projects":[{"type":"work","value":"apollo"},{"value":"gemini"}],"grade":7}},"suspended":true,"n":null,"aliases":["a2@x","","a3@x"]}`
	want := map[string]string{"primaryEmail": "a@x", "name.givenName": "A", "addresses.countryCode": "US",
		"organizations.department": "Sales", "emails.address": "", "phones.value": "1", "phones": "x",
		"customSchemas.Employment.costCenter": "CC1", "customSchemas.Employment.levels": "3,45", "suspended": "true",
		"customSchemas.Employment.projects": "apollo,gemini", "customSchemas.Employment.grade": "7",
		"name": "", "n": "", "missing.x": "", "primaryEmail.x": "", "aliases": "a2@x"}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	got, all, err := extract(`{"kind":"k","users":[`+user+`],"nextPageToken":"t"}`, paths)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	var u map[string]any
	if err := restapi.Decode(strings.NewReader(user), &u); err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got[0][p] != w || attr(u, p) != w {
			t.Errorf("%s: extractor %q, reference %q, want %q", p, got[0][p], attr(u, p), w)
		}
	}
	wantValues := map[string][]string{"addresses.countryCode": {"DE", "US", "FR"}, "organizations.department": {"Sales"},
		"phones.value": {"1"}, "phones": {"x"}, "customSchemas.Employment.levels": {"3", "45"},
		"customSchemas.Employment.projects": {"apollo", "gemini"}, "aliases": {"a2@x", "a3@x"}}
	for _, p := range paths {
		if w := wantValues[p]; !slices.Equal(all[0][p], w) || !slices.Equal(values(u, p), w) {
			t.Errorf("%s: values %q, reference %q, want %q", p, all[0][p], values(u, p), w)
		}
	}
	for _, bad := range []string{`[]`, `{"users":[{"a":}]}`, `{"users":[{"a":1}`, `{"users":[1]}`} {
		if _, _, err := extract(bad, []string{"a"}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzPage: no answer body makes the page reading panic, and every
// attribute the extractor reads is the one the reference reading of the
// decoded user gives.
func FuzzPage(f *testing.F) {
	for _, s := range []string{`{"users":[{"id":"1","name":{"givenName":"A"}}],"nextPageToken":"t"}`, `{"users":[{"a":[{"b":1},{"b":2,"primary":true}]}]}`,
		`{"users":[{"a":[1,{"b":"x"}],"c":[[1]],"d":{"e":[true]}}]}`, `[`, `{"nextPageToken":1}`,
		`{"users":[{"customSchemas":{"S":{"f":[{"value":1},{"value":[2]},"x",{"type":"t"}]}}}]}`} {
		f.Add(s, "a.b", "name.givenName")
	}
	f.Fuzz(func(t *testing.T, body, path1, path2 string) {
		paths := []string{path1, path2}
		got, all, err := extract(body, paths)
		var page struct {
			Users []map[string]any `json:"users"`
		}
		if err != nil || restapi.Decode(strings.NewReader(body), &page) != nil {
			return
		}
		if len(got) != len(page.Users) {
			t.Fatalf("%d users, the decoded page has %d", len(got), len(page.Users))
		}
		for i, u := range page.Users {
			for _, p := range paths {
				if got[i][p] != attr(u, p) {
					t.Errorf("user %d %q: extractor %q, reference %q", i, p, got[i][p], attr(u, p))
				}
				if !slices.Equal(all[i][p], values(u, p)) {
					t.Errorf("user %d %q: extractor's values %q, reference %q", i, p, all[i][p], values(u, p))
				}
			}
		}
	})
}

// TestRecordsOfATopLevelArray: a page that is itself the array of
// records (Okta's) reads as the member of one.
func TestRecordsOfATopLevelArray(t *testing.T) {
	t.Parallel()
	var got []string
	err := New([]string{"id", "profile.email"}, nil).Records(strings.NewReader(`[{"id":"1","profile":{"email":"a@x"}},{"id":"2"}]`), "",
		func(r *Record) {
			got = append(got, r.Get("id")+" "+r.Get("profile.email")+r.Get("other")+strings.Join(r.Values("other"), ""))
		})
	if err != nil || strings.Join(got, ",") != "1 a@x,2 " {
		t.Errorf("%q, %v", got, err)
	}
	if err := New([]string{"id"}, nil).Records(strings.NewReader(`{"id":"1"}`), "", func(*Record) {}); err == nil {
		t.Error("an object as a top-level page: no error")
	}
}
