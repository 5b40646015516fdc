package config

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/youmark/pkcs8"

	"github.com/orgsync/orgsync/target/umapi"
)

// The permission warning fires only when every user of the machine may
// read the secret: not for a group-readable Kubernetes secret volume
// (0440 with fsGroup), not for the published demo credentials, which mark
// themselves.
func TestSecretFilePermissionWarning(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	demoKey, err := os.ReadFile("../examples/sim/demo-private-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	demoSecret, err := os.ReadFile("../examples/sim/demo-client-secret")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  string
		mode os.FileMode
		warn bool
	}{
		{"owner only", "KEY", 0o600, false},
		{"group-readable secret volume", "KEY", 0o440, false},
		{"group-readable", "KEY", 0o640, false},
		{"world-readable", "KEY", 0o644, true},
		{"world-readable, owner cannot even write", "KEY", 0o444, true},
		{"the demo key from a checkout", string(demoKey), 0o644, false},
		{"the demo client secret from a checkout", string(demoSecret), 0o644, false},
		{"the demo key edited into a real one", strings.Replace(string(demoKey), publishedMark, "", 1), 0o644, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TEST_SECRET", "s")
			dir := write(t, map[string]string{"c.yaml": minimal, "users.csv": "email\n"}, 0o600)
			key := filepath.Join(dir, "key.pem")
			if err := os.WriteFile(key, []byte(tc.key), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(key, tc.mode); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(filepath.Join(dir, "c.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			for _, w := range cfg.Warnings {
				if strings.HasPrefix(w.String(), "target.auth.privateKey.file") {
					warned = append(warned, w.String())
				}
			}
			if got := len(warned) > 0; got != tc.warn {
				t.Fatalf("warned %v (%q), want %v", got, warned, tc.warn)
			}
			if tc.warn && !strings.Contains(warned[0], "readable by every user of this machine") {
				t.Errorf("warning %q does not say what is wrong", warned[0])
			}
		})
	}
}

// An encrypted PKCS#8 key is decrypted with the passphrase that
// target.auth.privateKeyPassphrase points at (a file here, an environment
// variable works the same way).
func TestEncryptedPrivateKeyPassphrase(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := pkcs8.MarshalPrivateKey(key, []byte("s3cret pass"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEST_SECRET", "s")
	withPass := strings.Replace(minimal, "privateKey: {file: key.pem}", "privateKey: {file: key.pem}\n    privateKeyPassphrase: {file: key.pass}", 1)
	dir := write(t, map[string]string{"c.yaml": withPass, "without.yaml": minimal, "users.csv": "email\n",
		"key.pem": string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der})), "key.pass": "s3cret pass\n"}, 0o600)
	for name, want := range map[string]string{"c.yaml": "", "without.yaml": "set privateKeyPassphrase"} {
		cfg, err := Load(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := cfg.Target.ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		_, err = umapi.New(cc)
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("%s: umapi.New: %v, want %q", name, err, want)
		}
	}
	oauth := strings.Replace(withPass, "clientId: cid", "clientId: cid\n    method: oauth", 1)
	if err := os.WriteFile(filepath.Join(dir, "oauth.yaml"), []byte(oauth), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(dir, "oauth.yaml")); err == nil || !strings.Contains(err.Error(), "privateKeyPassphrase and technicalAccountId belong to method jwt") {
		t.Errorf("oauth with a passphrase: %v", err)
	}
}
