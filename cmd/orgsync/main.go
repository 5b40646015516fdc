// Command orgsync keeps the users of an organization in the User Management
// Service in step with the company directory: `orgsync plan` shows what
// would change, `orgsync sync` applies it, `orgsync daemon` does so on a
// schedule, and `orgsync sim` and `orgsync demo` run the built-in simulator
// of the service. Run `orgsync help` for every command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	// The time zone database, for schedule.timezone on systems (and
	// container images) without one.
	_ "time/tzdata"
)

func main() {
	if code, ok := asService(os.Args[1:]); ok {
		os.Exit(code)
	}
	// The Go memory limit from the container's, before anything is held;
	// the commands that log say what was chosen.
	mem := memlimit.Set("/", os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], stdio{out: os.Stdout, err: os.Stderr, in: os.Stdin, memory: &mem})
	stop()
	os.Exit(code)
}
