package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// updateGolden rewrites the golden plans instead of comparing with them:
// go test ./cmd/orgsync -update-golden.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from this run")

// goldenCommands are the commands whose standard output holds plans.
var goldenCommands = []string{"plan", "sync", "demo"}

// goldenRecords collects, per test, the plans its runs of the binary
// printed; the test's cleanup compares them with its golden file.
var goldenRecords = struct {
	sync.Mutex
	byTest map[string]*strings.Builder
	// unsteady are the tests whose plans depend on timing (how much an
	// interrupted sync sent): they keep no golden plans.
	unsteady map[string]bool
}{byTest: map[string]*strings.Builder{}, unsteady: map[string]bool{}}

// notGolden says that the test's plans depend on timing (see unsteady).
func notGolden(t testing.TB) {
	goldenRecords.Lock()
	defer goldenRecords.Unlock()
	goldenRecords.unsteady[t.Name()] = true
}

// recordGolden (called by runBinary: every end-to-end test, and TestDemo over
// the examples, has its plans kept) adds the standard output of a run of the binary to the
// test's golden record, when the command prints plans; the first record
// of a test registers the comparison with its golden file at its end.
func recordGolden(t testing.TB, args []string, stdout string) {
	if _, bench := t.(*testing.B); bench || len(args) == 0 || !slices.Contains(goldenCommands, args[0]) {
		return
	}
	goldenRecords.Lock()
	defer goldenRecords.Unlock()
	if goldenRecords.unsteady[t.Name()] {
		return
	}
	b, ok := goldenRecords.byTest[t.Name()]
	if !ok {
		b = &strings.Builder{}
		goldenRecords.byTest[t.Name()] = b
		t.Cleanup(func() { checkGolden(t) })
	}
	fmt.Fprintf(b, "### orgsync %s\n%s\n", goldenArgs(args), normalizePlans(args[0], stdout))
}

// checkGolden compares the test's record with testdata/golden/<test>.txt
// (or writes it with -update-golden).
func checkGolden(t testing.TB) {
	goldenRecords.Lock()
	got := goldenRecords.byTest[t.Name()].String()
	delete(goldenRecords.byTest, t.Name())
	goldenRecords.Unlock()
	if t.Failed() {
		return // a failed run's output is not the plan to keep
	}
	path := filepath.Join("testdata", "golden", strings.NewReplacer("/", "__", " ", "_").Replace(t.Name())+".txt")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden plans: %v (run go test ./cmd/orgsync -update-golden once the plans are right)", err)
	}
	if got != string(want) {
		t.Errorf("the plans differ from %s (a change of behaviour; -update-golden only when it is meant):\n%s", path, firstDifference(string(want), got))
	}
}

// firstDifference shows the first line where got differs from want.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		wl, gl := "<end>", "<end>"
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant: %s\ngot:  %s", i+1, wl, gl)
		}
	}
	return ""
}

// Parts of the output that change from run to run, not with the plan.
var (
	tempPath = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/[^\s"':,]+`)
	loopback = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	elapsed  = regexp.MustCompile(`\b(\d+h)?(\d+m)?[\d.]+(ns|µs|ms|s)\b`)
	date     = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	// requestID is the client's X-Request-Id, random per process.
	requestID = regexp.MustCompile(`orgsync-[0-9a-f]+-\d+`)
	// apiRequests counts the requests of a run, retries included (a test
	// that injects faults retries a different number of times each run).
	apiRequests = regexp.MustCompile(`\d+ API requests in all, \d+ answered 429`)
	// approvalID is an approval's random id, after the words that name it.
	approvalID = regexp.MustCompile(`((?:approval|approve|reject):? )[0-9a-f]{8}\b`)
	// timestamp is an RFC 3339 time (when a saved plan was made).
	timestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
	// clock is a time of day (the demo's history lists when each change was applied).
	clock = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}Z?\b`)
	// fingerprint is a saved plan's short fingerprint (of a temporary file's content).
	fingerprint = regexp.MustCompile(`fingerprint [0-9a-f]{12}`)
	// resultLine starts the result lines that sync prints after the plans.
	resultLine = regexp.MustCompile(`(?m)^(\S+: )?(applied|validated by the service)`)
)

// goldenArgs are the command's arguments without what changes from run
// to run (temporary paths, ports).
func goldenArgs(args []string) string {
	return tempPath.ReplaceAllString(strings.Join(args, " "), "<tmp>")
}

// normalizePlans replaces what changes from run to run in a command's
// output (temporary paths, loopback ports, durations, dates) and, for a
// sync of several organizations, which prints each plan as soon as it is
// ready, puts the organizations' plans in order.
func normalizePlans(command, out string) string {
	out = tempPath.ReplaceAllString(out, "<tmp>")
	out = timestamp.ReplaceAllString(out, "<timestamp>")
	out = loopback.ReplaceAllString(out, "127.0.0.1:<port>")
	out = elapsed.ReplaceAllString(out, "<duration>")
	out = date.ReplaceAllString(out, "<date>")
	out = requestID.ReplaceAllString(out, "orgsync-<request>")
	out = apiRequests.ReplaceAllString(out, "<n> API requests in all, <n> answered 429")
	out = approvalID.ReplaceAllString(out, "${1}<approval>")
	out = clock.ReplaceAllString(out, "<time>")
	out = fingerprint.ReplaceAllString(out, "fingerprint <fingerprint>")
	if command != "sync" || !strings.Contains(out, "== organization ") {
		return out
	}
	head, tail := out, ""
	if loc := resultLine.FindStringIndex(out); loc != nil {
		head, tail = out[:loc[0]], out[loc[0]:]
	}
	blocks := strings.Split(head, "== organization ")
	for i := range blocks {
		blocks[i] = strings.TrimRight(blocks[i], "\n")
	}
	slices.Sort(blocks[1:])
	return strings.Join(blocks, "\n\n== organization ") + "\n" + tail
}
