package reconcile

import (
	"slices"
	"testing"
)

// AddKind adds kind k to the table of kinds for the rest of test t, as a
// row added to kindTable would: sent as a user entry removing the user
// from the organization (a destructive kind) or updating it, counted with
// words at place line of the summary line and place json of the JSON
// counts. The table is the package's: t must not run in parallel (it runs
// before the parallel tests resume).
func AddKind(t testing.TB, k Kind, sign string, destructive bool, words string, line, json int) {
	t.Helper()
	old := kindTable
	kindTable = append(slices.Clip(kindTable), kindRow{kind: k, sign: sign, destructive: destructive,
		count: countRow{words: words, line: line, json: json}, send: asUserEntry, steps: userSteps{removeFromOrg: destructive}})
	kinds = indexKinds()
	t.Cleanup(func() {
		kindTable = old
		kinds = indexKinds() // of the table restored
	})
}
