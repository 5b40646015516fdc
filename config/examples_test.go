package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesLoad loads every example configuration of the repository.
// The Active Directory and FreeIPA ones name secret files of a Kubernetes
// volume (/etc/orgsync/secrets), which must be the only problems reported.
func TestExamplesLoad(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"csv", "yaml", "openldap", "activedirectory", "freeipa", "multiorg", "entra", "okta"} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Load(filepath.Join("..", "examples", name, "orgsync.yaml"))
			var cerr *Error
			if (name == "activedirectory" || name == "freeipa") && errors.As(err, &cerr) {
				for _, p := range cerr.Problems {
					if !strings.Contains(p.Message, "/etc/orgsync/secrets/") && !strings.Contains(p.Message, "placeholder orgsync init writes") {
						t.Errorf("unexpected problem: %s", p)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Sources) == 0 || len(cfg.Mapping) == 0 {
				t.Errorf("example %s has no sources or mapping", name)
			}
		})
	}
}
