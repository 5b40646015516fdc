package winsvc

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestControl: an unknown action is refused with the actions to use, and
// off Windows every action says it is Windows'.
func TestControl(t *testing.T) {
	t.Parallel()
	if _, _, err := Control("restart", Options{}); err == nil || !strings.Contains(err.Error(), "install uninstall start stop reload") {
		t.Errorf("unknown action: %v", err)
	}
	if runtime.GOOS == "windows" {
		return // the actions act on the machine's services
	}
	for _, a := range Actions {
		if _, _, err := Control(a, Options{Exe: "orgsync.exe"}); !errors.Is(err, ErrNotWindows) {
			t.Errorf("%s: %v, want ErrNotWindows", a, err)
		}
	}
}
