package secret

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/textcut"
)

// DefaultTimeout bounds a secret command whose Ref sets no Timeout.
const DefaultTimeout = 30 * time.Second

// maxStderr is how much of a failed command's standard error its error
// keeps for the local log.
const maxStderr = 300

// run runs the command of r without a shell and returns its standard
// output, less a trailing newline. A failure's error says which command
// and its exit code; the start of its standard error (what the secret
// manager says went wrong, which may quote a token) is a detail for the
// local log only (CommandError), never in the error's text.
func (r Ref) run() (Value, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Exec[0], r.Exec[1:]...)
	cmd.Dir = r.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("secret command %s did not finish within %s (set timeout to allow longer)", r.Exec[0], timeout)
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Errorf("secret command %s: not found on PATH", r.Exec[0])
	case errors.As(err, &exit):
		return "", &CommandError{Program: r.Exec[0], ExitCode: exit.ExitCode(), stderr: cutStderr(stderr.String())}
	case err != nil: // it did not start
		return "", fmt.Errorf("secret command %s: %w", r.Exec[0], err)
	}
	v := strings.TrimRight(stdout.String(), "\r\n")
	if v == "" {
		return "", fmt.Errorf("secret command %s printed nothing", r.Exec[0])
	}
	return Value(v), nil
}

// CommandError is a secret command that ended with an exit code other
// than 0 (-1: killed by a signal). Its Error says so and no more: run
// records, /healthz and notifications show it. The command's standard
// error is its LocalDetail, for the local log only.
type CommandError struct {
	Program  string
	ExitCode int
	stderr   string // the start of its standard error, on one line
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("secret command %s failed with exit code %d (what it wrote on standard error is in orgsync's log)", e.Program, e.ExitCode)
}

// LocalDetail is the start of the command's standard error, for the
// local log only (logs.LocalDetail).
func (e *CommandError) LocalDetail() string {
	if e.stderr == "" {
		return "secret command " + e.Program + " wrote nothing on standard error"
	}
	return "secret command " + e.Program + " wrote on standard error: " + e.stderr
}

// cutStderr returns the start of a command's standard error on one line,
// at most maxStderr bytes.
func cutStderr(s string) string {
	return textcut.Cut(strings.Join(strings.Fields(s), " "), maxStderr)
}
