package plural

import "testing"

func TestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 changes"}, {1, "1 change"}, {2, "2 changes"}, {-1, "-1 changes"}} {
		if got := Of(tc.n, "change", "changes"); got != tc.want {
			t.Errorf("Of(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
