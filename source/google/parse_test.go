package google

import (
	"testing"
)

func TestNextPageToken(t *testing.T) {
	t.Parallel()
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
	for _, bad := range []string{`[]`, ``, `{"nextPageToken":`, `"x"`, `{"nextPageToken":1}`} {
		if _, err := nextPageToken([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
