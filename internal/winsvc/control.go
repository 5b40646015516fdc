package winsvc

import (
	"fmt"
	"strings"
)

// Actions are what orgsync service does, in its usage's order.
var Actions = []string{"install", "uninstall", "start", "stop", "reload"}

// Control carries out action (one of Actions) on the service and says
// what it did; o says how to install it (install only). The warnings are
// Install's.
func Control(action string, o Options) (done string, warnings []string, err error) {
	switch action {
	case "install":
		warnings, err = Install(o)
		done = fmt.Sprintf("service %s installed: it runs %s %s, starts with Windows once started (orgsync service start), and restarts after a failure",
			Name, o.Exe, strings.Join(o.Args, " "))
	case "uninstall":
		err = Uninstall(o.Exe)
		done = fmt.Sprintf("service %s removed; its configuration and state are kept", Name)
	case "start":
		err = Start()
		done = fmt.Sprintf("service %s started: its log says when the next run is", Name)
	case "stop":
		err = Stop()
		done = fmt.Sprintf("service %s stopped", Name)
	case "reload":
		err = Reload()
		done = fmt.Sprintf("service %s reads its configuration again (between runs)", Name)
	default:
		err = fmt.Errorf("unknown action %q: use one of %v", action, Actions)
	}
	return done, warnings, err
}
