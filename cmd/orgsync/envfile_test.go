package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/target/umsim"
)

// TestEnvFileGivesTheUnitsSecrets: with the service's client secret and
// the configuration's path only in the environment file the units read,
// a run by hand with --env-file signs in as the units do; without it,
// the secret is missing; a file every user can read is warned of. Run as
// another user (as the packaged install's `sudo -u orgsync`), a file only
// root can read is refused with the chgrp and chmod that fix it, and read
// once they are done.
func TestEnvFileGivesTheUnitsSecrets(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {env: ORGSYNC_TEST_ENV_SECRET}")
	secret, err := os.ReadFile(filepath.Join(dir, "sim", "demo-client-secret"))
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(dir, "orgsync.env")
	content := "# as /etc/orgsync/orgsync.env\nORGSYNC_TEST_ENV_SECRET=\"" + strings.TrimSpace(string(secret)) + "\"\nORGSYNC_CONFIG=" + cfg + "\n"
	if err := os.WriteFile(envFile, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, nil, "validate", "--config", cfg, "--check-target"); r.code != exitError || !strings.Contains(r.stdout, "ORGSYNC_TEST_ENV_SECRET is not set") {
		t.Errorf("validate without the environment file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "validate", "--env-file", envFile, "--check-target"); r.code != exitOK || !strings.Contains(r.stdout, "configuration valid") ||
		strings.Contains(r.stderr, "--env-file") {
		t.Errorf("validate --env-file (the configuration named by ORGSYNC_CONFIG in it): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Chmod(envFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, nil, "validate", "--env-file", envFile); r.code != exitOK ||
		!strings.Contains(r.stderr, "warning: --env-file "+envFile+" holds secrets and every user of this machine can read it (mode 0644): sudo chmod 0640 "+envFile) {
		t.Errorf("validate --env-file of a file every user reads: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Run("as another user", func(t *testing.T) {
		testenv.Root(t, "a run as another user (nobody)")
		shared, err := os.MkdirTemp("", "orgsync-envfile-") // a folder another user can reach
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shared) })
		bin := filepath.Join(shared, "orgsync")
		if data, err := os.ReadFile(binary); err != nil || os.WriteFile(bin, data, 0o755) != nil || os.Chmod(shared, 0o755) != nil {
			t.Fatalf("copying the binary: %v", err)
		}
		envFile = filepath.Join(shared, "orgsync.env")
		if err := os.WriteFile(envFile, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		const nobody = 65534
		asNobody := func() (string, int) {
			cmd := exec.Command(bin, "validate", "--env-file", envFile, "--config", "/nonexistent/orgsync.yaml")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			out, _ := cmd.CombinedOutput()
			return string(out), cmd.ProcessState.ExitCode()
		}
		if out, code := asNobody(); code != exitError || !strings.Contains(out, "chgrp orgsync "+envFile+" && sudo chmod 0640 "+envFile) {
			t.Errorf("as another user, an environment file only root reads: exit %d\n%s", code, out)
		}
		if err := os.Chown(envFile, 0, nobody); err != nil || os.Chmod(envFile, 0o640) != nil {
			t.Fatalf("chgrp: %v", err)
		}
		if out, code := asNobody(); code != exitError || !strings.Contains(out, "there is no configuration file /nonexistent/orgsync.yaml") {
			t.Errorf("as another user, once the file is group-readable: exit %d\n%s", code, out)
		}
	})
}
