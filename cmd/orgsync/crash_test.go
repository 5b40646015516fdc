package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A command that panics (a bug) exits 1 with the message and the stack,
// never Go's 2, which plan --detailed-exitcode gives to "changes pending".
func TestCommandPanicExitsOne(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	code := guarded(stdio{out: io.Discard, err: &stderr}, "plan", func() int { panic("boom") })
	if code != exitError || !strings.Contains(stderr.String(), "orgsync plan: internal error") || !strings.Contains(stderr.String(), "crash_test.go") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1, the message and the stack", code, stderr.String())
	}
	if code := guarded(stdio{out: io.Discard, err: &stderr}, "plan", func() int { return exitChanges }); code != exitChanges {
		t.Errorf("a command that returned %d exited %d", exitChanges, code)
	}
}
