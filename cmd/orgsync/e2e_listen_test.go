package main

import (
	"regexp"
	"testing"
	"time"
)

// anyPort is the listen address of the daemons and simulators the tests
// start: a loopback port the kernel picks when the process binds it, which
// the process then logs (listening). A port found free beforehand and
// handed on could be taken by another test in between.
const anyPort = "127.0.0.1:0"

// listenLine is the log line (JSON) in which a daemon or a simulator says
// the address it listens on.
var listenLine = regexp.MustCompile(`"msg":"(?:daemon started|simulator listening)".*?"(?:listen|url)":"(?:https?://)?([^"]+)"`)

// listening waits until the process logging to stderr says where it
// listens, and returns that address (host:port).
func listening(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := listenLine.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("the process did not say where it listens within 30 s:\n%s", stderr.String())
	return ""
}
