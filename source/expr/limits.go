package expr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// Bounds on the work of an expression whose cost CEL cannot bound when
// the configuration is loaded (see MaxCost). CEL's cost counting is
// deterministic but, inside a comprehension (exists, all, map, filter),
// its own bookkeeping grows with the iterations done, so that an
// evaluation can spend seconds before reaching MaxCost: the time of one
// evaluation is bounded too, and an expression that hits a limit on
// MaxLimitHits records of a run (see WithScope) is not run on the others,
// whose records are bad records at once: a run with a runaway expression
// ends in seconds, not hours, and says which expression to fix.
const (
	MaxEvalTime  = time.Second
	MaxLimitHits = 10
	// interruptEvery is how many comprehension iterations CEL runs between
	// two looks at the evaluation's deadline.
	interruptEvery = 100
)

// errOverLimit marks an evaluation stopped by a limit.
var errOverLimit = errors.New("over the limits")

// program is one compiled expression; counted is set when CEL could not
// bound its cost at load: it then runs with the cost limit and deadline.
type program struct {
	cel.Program
	counted bool
	reads   []attributeRead // the attributes it reads outright (attributeReads)
	values  bool            // it reads user.attributeValues
}

// eval runs the expression of key over the record of a.
func (p *Program) eval(key string, prg *program, a *activation) (ref.Val, error) {
	if !prg.counted {
		v, _, err := prg.Eval(a)
		if err != nil {
			return nil, p.fail(key, missingKey(err, a.r))
		}
		return v, nil
	}
	if n := p.stopped.Load(); n >= MaxLimitHits {
		return nil, p.fail(key, fmt.Errorf("%w: not run, since it went over its limits on %d records: simplify it", errOverLimit, n))
	}
	ctx, cancel := context.WithTimeout(context.Background(), MaxEvalTime)
	defer cancel()
	v, _, err := prg.ContextEval(ctx, a)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil || isCostLimit(err) {
		p.stopped.Add(1)
		err = fmt.Errorf("%w: it ran longer than %v or did more work than %d cost units on this record: simplify it (%v)", errOverLimit, MaxEvalTime, MaxCost, err)
	}
	return nil, p.fail(key, missingKey(err, a.r))
}

// isCostLimit reports whether err is CEL's cost limit being reached.
func isCostLimit(err error) bool {
	var c interpreter.EvalCancelledError
	return errors.As(err, &c) && c.Cause == interpreter.CostLimitExceeded
}
