package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	known := []string{"baseURL", "authBaseURL", "orgId", "design", "engineering"}
	for name, want := range map[string]string{
		"baseUrl": "baseURL", "base_url": "baseURL", "orgid": "orgId", "desgin": "design", "enginering": "engineering",
		"design": "", "timeouts": "", "": "",
	} {
		if got := Nearest(name, known); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
}
