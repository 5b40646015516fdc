package store

import "testing"

// TestAttemptsAreBounded: an approval keeps the last MaxAttempts failed
// attempts.
func TestAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	var a Approval
	for i := range MaxAttempts + 3 {
		a.Failed(Attempt{Run: string(rune('a' + i))})
	}
	if len(a.Attempts) != MaxAttempts || a.Attempts[0].Run != "d" {
		t.Errorf("attempts %+v, want the last %d", a.Attempts, MaxAttempts)
	}
}
