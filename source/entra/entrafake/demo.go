package entrafake

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// StartDemo starts a fake Entra ID tenant for the entra example and
// points the example at it: its endpoints, its demo app, and a sign-in
// without a secret: workload identity federation, with a federated token
// file (as AKS mounts it) of a demo cluster's issuer, which the demo
// app's federated credential trusts.
func StartDemo(out io.Writer, dir string) ([]string, func(), error) {
	iss, err := NewIssuer(DemoIssuer)
	if err != nil {
		return nil, nil, err
	}
	tenant := Demo()
	tenant.Trust(iss)
	tok := iss.Token(DemoServiceAccount, DefaultFederatedAudience, 24*time.Hour)
	if err := os.WriteFile(filepath.Join(dir, "entra", "demo-federated-token"), []byte(tok), 0o600); err != nil {
		return nil, nil, err
	}
	s := Start(tenant, Options{})
	fmt.Fprintf(out, "Fake Entra ID tenant (Microsoft Graph) at %s.\n", s.URL)
	fmt.Fprintln(out, "Signing in without a secret: workload identity federation, with a federated token file as AKS mounts it (auth: workloadIdentity).")
	return []string{
		"tenantId: contoso.onmicrosoft.com", fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", DemoTenantID, s.URL, s.URL),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "auth: workloadIdentity\n      federatedTokenFile: demo-federated-token",
	}, s.Close, nil
}
