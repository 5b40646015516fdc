package expr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHostileExpressions: an expression that would make a huge string or
// run long on a record with the largest values allowed fails on that
// record quickly (the record is skipped), instead of stalling the run or
// filling the memory; ordinary string work on the same record succeeds.
func TestHostileExpressions(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a", MaxValueLen)
	tests := []struct{ filter, want string }{
		{`user.firstname.replace("", user.firstname).size() > 0`, "replace would make a string of more than"},
		{`user.firstname.replace("a", user.lastname, 100).replace("a", user.lastname).size() > 0`, "replace would make"},
		{`user.firstname.split("").join(user.firstname).size() > 0`, "join would make"},
		{`user.firstname.split("").map(x, user.firstname).join().size() > 0`, "join would make"},
		{`"%s".format([user.firstname.split("").map(x, user.firstname)]).size() > 0`, "format would make"},
		{`user.firstname.split("").map(a, user.firstname.split("").map(b, a + b)).size() > 0`, "over the limits"},
		{`user.firstname.split("").all(a, user.firstname.split("").all(b, a == b || true))`, "over the limits"},
		{strings.Repeat("strings.quote(", 20) + `user.firstname.replace("a", "\"")` + strings.Repeat(")", 20) + ` != ""`, "over the limits"},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			p, err := Compile(Config{Filter: tt.filter})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = p.Run(record(map[string]string{"firstname": big, "lastname": big}, nil))
			var e *Error
			if !errors.As(err, &e) || e.Key != "filter" || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run = %v; want a filter error containing %q", err, tt.want)
			}
			// The bound is the cost limit, not the clock: this only catches
			// an evaluation that no longer stops (about 1 s on an idle
			// machine; far more on one busy with the whole test suite).
			if d := time.Since(start); d > 60*time.Second {
				t.Errorf("took %v to stop", d)
			}
		})
	}
	for _, ok := range []string{
		`user.firstname.replace("a", "b").size() > 0`,
		`[user.firstname, user.lastname].join(" ").size() > 0`,
		`"%s %s".format([user.firstname, user.lastname]).size() > 0`,
		`user.firstname.replace("a", "bb", 10).startsWith("bbbbbbbbbbbbbbbbbbbba")`,
	} {
		p, err := Compile(Config{Filter: ok})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := p.Run(record(map[string]string{"firstname": big, "lastname": big}, nil)); err != nil || !out.Keep {
			t.Errorf("%s: %+v, %v; want kept", ok, out, err)
		}
	}
}

// TestHostileExpressionText: an expression too deep or too long is a
// load-time problem, not a crash or a stall.
func TestHostileExpressionText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		strings.Repeat("(", 5000) + "true" + strings.Repeat(")", 5000): "recursion limit",
		strings.Repeat("[", 300) + strings.Repeat("]", 300) + " == []": "recursion limit",
		`user.email == "` + strings.Repeat("x", 200_000) + `"`:         "size exceeds limit",
	} {
		if _, err := Compile(Config{Filter: text}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%.30s...) = %v; want %q", text, err, want)
		}
	}
}

// TestRunawayExpressionIsStopped: once an expression has gone over its
// limits on MaxLimitHits records, it is not run again: the other records
// fail at once, so that a runaway expression cannot make a run of a
// large source last hours; an ordinary record still fails, and says why.
func TestRunawayExpressionIsStopped(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Groups: `directoryGroups.exists(a, directoryGroups.exists(b, directoryGroups.exists(c, a + b + c == ""))) ? ["x"] : []`})
	if err != nil {
		t.Fatal(err)
	}
	huge := make([]string, 300)
	for i := range huge {
		huge[i] = "g"
	}
	for i := range MaxLimitHits {
		if _, err := p.Run(record(nil, nil, huge...)); err == nil || !strings.Contains(err.Error(), "over the limits") {
			t.Fatalf("record %d: Run = %v, want over the limits", i, err)
		}
	}
	start := time.Now()
	for range 1000 {
		_, err = p.Run(record(nil, nil, huge...))
	}
	if !strings.Contains(fmt.Sprint(err), "not run, since it went over its limits on 10 records: simplify it") || time.Since(start) > time.Second {
		t.Fatalf("after %d records over the limits: Run = %v in %v; want refused at once", MaxLimitHits, err, time.Since(start))
	}
	if KeyOf(err) != "groups" {
		t.Errorf("KeyOf = %s, want groups", KeyOf(err))
	}
	// The copy for the next run (of a daemon) counts afresh.
	if out, err := p.WithScope(nil).Run(record(nil, nil, "g", "")); err != nil || !slices.Equal(out.Groups, []string{"x"}) {
		t.Errorf("the next run's copy: %+v, %v; want the expression run", out, err)
	}
}
