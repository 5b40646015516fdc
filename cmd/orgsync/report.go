package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// writeUnlistedReport writes the users of the organization that are in no
// source to path as CSV (atomically: a temporary file, then a rename).
func writeUnlistedReport(path string, users []reconcile.User) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("policy.reportFile: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := csv.NewWriter(tmp)
	_ = w.Write([]string{"email", "username", "domain", "type", "firstname", "lastname", "country", "groups"})
	for _, u := range users {
		_ = w.Write([]string{u.Email, u.Username, u.Domain, string(u.Type), u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ",")})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		tmp.Close()
		return fmt.Errorf("policy.reportFile: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("policy.reportFile: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("policy.reportFile: %w", err)
	}
	return nil
}
