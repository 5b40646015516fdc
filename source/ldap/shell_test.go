package ldap_test

import "os/exec"

// shell runs a command line with sh and returns its combined output.
func shell(line string) (string, error) {
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	return string(out), err
}
