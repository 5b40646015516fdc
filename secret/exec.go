package secret

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds a secret command whose Ref sets no Timeout.
const DefaultTimeout = 30 * time.Second

// maxStderr is how much of a failed command's standard error its error
// quotes.
const maxStderr = 300

// run runs the command of r without a shell and returns its standard
// output, less a trailing newline. A failure quotes the start of the
// command's standard error (what the secret manager says went wrong),
// never its output.
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
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("secret command %s did not finish within %s (set timeout to allow longer)", r.Exec[0], timeout)
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Errorf("secret command %s: not found on PATH", r.Exec[0])
	case err != nil:
		return "", fmt.Errorf("secret command %s failed: %v%s", r.Exec[0], err, quoteStderr(stderr.String()))
	}
	v := strings.TrimRight(stdout.String(), "\r\n")
	if v == "" {
		return "", fmt.Errorf("secret command %s printed nothing", r.Exec[0])
	}
	return Value(v), nil
}

// quoteStderr returns ": " and the start of a command's standard error,
// or "" when it wrote none.
func quoteStderr(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > maxStderr {
		s = s[:maxStderr] + "…"
	}
	return ": " + strings.Join(strings.Fields(s), " ")
}
