package ldap

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzRangeNext: any range text gives the next start (high+1 of a well
// formed low-high, -1 for low-*) or an error, never a panic, and never a
// start that does not move forward.
func FuzzRangeNext(f *testing.F) {
	for _, seed := range []string{"0-1499", "1500-*", "3000-2999", "-1-5", "9223372036854775807-9223372036854775807", "a-b", "", "0-"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, r string) {
		next, err := rangeNext(r)
		if err != nil {
			return
		}
		low, high, _ := strings.Cut(r, "-")
		lo, _ := strconv.Atoi(low)
		if high == "*" {
			if next != -1 {
				t.Fatalf("%q: next %d, want -1", r, next)
			}
			return
		}
		hi, _ := strconv.Atoi(high)
		if next != hi+1 || next <= lo {
			t.Fatalf("%q: next %d, want %d (after %d)", r, next, hi+1, lo)
		}
	})
}
