package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/ldaptest"
	"github.com/orgsync/orgsync/source/ldap/slapd"
	"github.com/orgsync/orgsync/target/umsim"
)

// TestOpenLDAPExampleByHand follows the step-by-step OpenLDAP example of
// docs/sources.md with the example's own slapd.conf and users.ldif:
// slapadd, slapd in the background, then plan, sync and plan against the
// simulator. Only the paths (a temporary directory for /tmp/orgsync-ldap),
// the port and slapd's location (an unconfined copy, as the note says) are
// changed.
func TestOpenLDAPExampleByHand(t *testing.T) {
	t.Parallel()
	ldaptest.RequireSlapd(t)
	dir := exampleDir(t)
	db := t.TempDir()
	conf := filepath.Join(dir, "openldap", "slapd.conf")
	rewrite(t, conf, "/tmp/orgsync-ldap", db)
	slapdPath, err := slapd.Find()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(slapdPath)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "slapd")
	if err := os.WriteFile(copyPath, bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(copyPath, "-T", "add", "-f", conf, "-l", filepath.Join(dir, "openldap", "users.ldif")).CombinedOutput(); err != nil {
		t.Fatalf("slapadd: %v\n%s", err, out)
	}
	// slapd cannot say which port it bound: it is given one free a moment
	// ago, and another when a process took that one in between.
	var url string
	for try := 1; ; try++ {
		url = "ldap://" + freeAddr(t)
		out, err := exec.Command(copyPath, "-f", conf, "-h", url+"/").CombinedOutput()
		if err == nil {
			break
		}
		if try == 3 {
			t.Fatalf("slapd: %v\n%s", err, out)
		}
	}
	t.Cleanup(func() { stopByPIDFile(t, filepath.Join(db, "slapd.pid")) })
	waitFor(t, "slapd to answer", 20*time.Second, func() bool {
		conn, err := ldap3.DialURL(url)
		if err != nil {
			return false
		}
		defer conn.Close()
		return conn.Bind("cn=reader,dc=example,dc=com", ldap.OpenLDAPReaderPassword) == nil
	})

	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "openldap", s.url, "ldap://127.0.0.1:3890", url)
	env := []string{"LDAP_BIND_PASSWORD=" + ldap.OpenLDAPReaderPassword}
	if r := runBinary(t, env, "validate", "--config", cfg); r.code != exitOK || !strings.Contains(r.stdout, "configuration valid; 6 desired users from 1 source;") {
		t.Fatalf("validate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, env, "plan", "--config", cfg); r.code != exitOK || !strings.Contains(r.stdout, "Plan: 3 to create, 3 to update") {
		t.Fatalf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	} else if n := strings.Count(r.stderr, "source read"); n != 1 {
		t.Errorf("the read of the one source is logged %d times, want once:\n%s", n, r.stderr)
	}
	if r := runBinary(t, env, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, env, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after sync: exit %d\n%s", r.code, r.stdout)
	}
}

// rewrite replaces old with new in the file at path.
func rewrite(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// stopByPIDFile stops the daemon whose process id is in path and waits
// until it is gone.
func stopByPIDFile(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("slapd left no pid file: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Errorf("slapd's pid file: %v", err)
		return
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Errorf("stopping slapd: %v", err)
		return
	}
	waitFor(t, "slapd to stop", 10*time.Second, func() bool { return syscall.Kill(pid, 0) != nil })
}
