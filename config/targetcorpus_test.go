package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umapi"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/target-problems.txt")

// targetCorpus are broken target settings, each a file with its own
// mistakes: what Load, Preflight and the client (through Hint) say of them
// is kept in testdata/target-problems.txt, word for word.
var targetCorpus = []struct {
	name  string
	files map[string]string // c.yaml and what it names
}{
	{"every key wrong", map[string]string{"c.yaml": `target:
  orgId: not-an-org
  baseURL: ftp://um.example.com
  authBaseURL: https://ims.example.com/v2/usermanagement
  proxy: "http://[::1"
  auth:
    method: saml
    clientSecret: {env: CORPUS_SECRET}
  limits: {reads: -1, requests: -5, window: -1m}
  timeouts: {request: -1s}
  retries: {max: -2, minWait: 2m}
  tls: {caFile: missing.pem, insecureSkipVerify: true}
` + corpusRest}},
	{"nothing set", map[string]string{"c.yaml": "target: {}\n" + corpusRest}},
	{"placeholders of init", map[string]string{"c.yaml": `target:
  orgId: 0123456789ABCDEF@VendorOrg
  baseURL: https://usermanagement.example.com
  authBaseURL: https://usermanagement.example.com:8443
  auth:
    clientId: 0123456789abcdef0123456789abcdef
    clientSecret: {env: CORPUS_SECRET}
    technicalAccountId: 0123456789ABCDEF@techacct.example.com
    privateKey: {file: key.pem}
` + corpusRest, "key.pem": "x"}},
	{"oauth with the keys of jwt", map[string]string{"c.yaml": `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.com/v2/usermanagement/
  auth:
    method: oauth
    clientId: cid
    clientSecret: {env: CORPUS_SECRET}
    technicalAccountId: t@techacct.example.com
    privateKey: {file: key.pem}
` + corpusRest, "key.pem": "x"}},
	{"second organization", map[string]string{"c.yaml": `targets:
  - name: one
    orgId: 12AB@VendorOrg
    baseURL: https://um.example.com
    auth: {method: oauth, clientId: cid, clientSecret: {env: CORPUS_SECRET}}
  - name: two
    orgId: 34CD@VendorOrg
    baseURL: um.example.com
    auth: {clientId: cid, clientSecret: {file: missing-secret}}
    retries: {minWait: 1s, maxWait: 500ms}
sources:
  - csv: {path: users.csv}
mapping:
  - directory: eng
    targets: [Engineering, two::Design]
`}},
	{"secrets that do not load", map[string]string{"c.yaml": `targets:
  - name: one
    orgId: 12AB@VendorOrg
    baseURL: https://um.example.com
    auth:
      clientId: cid
      clientSecret: {env: CORPUS_UNSET}
      technicalAccountId: t@techacct.example.com
      privateKey: {file: key.pem}
    tls: {caFile: ca.pem}
  - name: two
    orgId: 34CD@VendorOrg
    baseURL: https://um.example.com
    auth:
      clientId: cid2
      clientSecret: {env: CORPUS_SECRET}
      technicalAccountId: t@techacct.example.com
      privateKey: {file: cert.pem}
  - name: three
    orgId: 56EF@VendorOrg
    baseURL: https://um.example.com
    auth:
      clientId: cid3
      clientSecret: {env: CORPUS_SECRET}
      technicalAccountId: t@techacct.example.com
      privateKey: {file: encrypted.pem}
sources:
  - csv: {path: users.csv}
mapping:
  - directory: eng
    targets: [Engineering, two::Design, three::Design]
`, "key.pem": "not a key", "ca.pem": "not a certificate",
		"cert.pem":      "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n",
		"encrypted.pem": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAMCAQE=\n-----END ENCRYPTED PRIVATE KEY-----\n"}},
	{"loads with warnings", map[string]string{"c.yaml": `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.com
  proxy: http://proxy.example.com:3128
  auth: {method: oauth, clientId: cid, clientSecret: {env: CORPUS_SECRET}, scopes: [openid, extra]}
  tls: {caFile: ca.pem, insecureSkipVerify: true}
` + corpusRest, "ca.pem": "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n"}},
}

// corpusRest is the rest of a one-target file of the corpus.
const corpusRest = `sources:
  - csv: {path: users.csv}
mapping:
  - directory: eng
    targets: [Engineering]
`

// TestTargetProblemsCorpus keeps what orgsync says of broken target
// settings unchanged: Load's problems and warnings, then, for a file that
// loads, Preflight's, and what the service client refuses as Hint names
// it (the run's path).
func TestTargetProblemsCorpus(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("CORPUS_SECRET", "s3cret")
	var b strings.Builder
	for _, c := range targetCorpus {
		files := map[string]string{"users.csv": "email\n"}
		for k, v := range c.files {
			files[k] = v
		}
		dir := write(t, files, 0o600)
		fmt.Fprintf(&b, "== %s\n", c.name)
		cfg, err := Load(filepath.Join(dir, "c.yaml"))
		text := func(s string) string { return strings.ReplaceAll(s, dir, "DIR") }
		if err != nil {
			fmt.Fprintf(&b, "Load: %s\n", text(err.Error()))
		}
		if cfg == nil {
			continue
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", text(w.String()))
		}
		for _, e := range cfg.Preflight() {
			fmt.Fprintf(&b, "Preflight: %s\n", text(e.Error()))
		}
		for i := range cfg.Targets {
			tg := &cfg.Targets[i]
			cc, err := tg.ClientConfig()
			if err != nil {
				continue
			}
			if _, err := umapi.New(cc); err != nil {
				fmt.Fprintf(&b, "client of %s: %s\n", tg.Name, text(tg.Hint(err).Error()))
			}
		}
	}
	golden := filepath.Join("testdata", "target-problems.txt")
	if *updateCorpus {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no %s: run go test -run TestTargetProblemsCorpus -update-corpus", golden)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("what orgsync says of broken target settings changed; got:\n%s\nwant:\n%s", got, want)
	}
}
