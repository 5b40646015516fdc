package entrafake

import (
	"crypto/rsa"
	"fmt"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// Generate returns a tenant with the app and n enabled users
// (user<i>@example.com), each in perUser of groups groups ("group<j>"),
// for benchmarks.
func Generate(app App, n, groups, perUser int) Tenant {
	t := Tenant{ID: "bench-tenant", Apps: []App{app}, Users: make([]User, n), Groups: make([]Group, groups)}
	for j := range t.Groups {
		t.Groups[j] = Group{ID: fmt.Sprintf("00000000-0000-0000-0001-%012d", j), DisplayName: fmt.Sprintf("group%d", j)}
	}
	for i := range t.Users {
		id := fmt.Sprintf("00000000-0000-0000-0002-%012d", i)
		t.Users[i] = User{ID: id, Props: map[string]any{
			"mail": fmt.Sprintf("user%d@example.com", i), "userPrincipalName": fmt.Sprintf("user%d@example.com", i),
			"givenName": "User", "surname": fmt.Sprintf("Number %d", i), "usageLocation": "US", "accountEnabled": true,
		}}
		for k := range perUser {
			g := &t.Groups[(i+k)%groups]
			g.Members = append(g.Members, id)
		}
	}
	return t
}

// Demo identities: the demo tenant and its app (public, fake).
const (
	DemoTenantID = "00000000-0000-0000-0000-00000000demo"
	DemoClientID = "11111111-2222-3333-4444-555555555555"
	DemoSecret   = "demo-entra-secret-not-a-real-secret"
)

// The demo's workload identity: the OpenID Connect issuer of an AKS
// cluster, whose tokens for the service account DemoServiceAccount the
// demo app's federated credential trusts (the demo makes the issuer's
// key: Trust).
const (
	DemoIssuer         = "https://oidc.prod-aks.azure.com/00000000-0000-0000-0000-00000000demo/"
	DemoServiceAccount = "system:serviceaccount:orgsync:orgsync"
)

// Issuer is an OpenID Connect issuer of workload tokens (a Kubernetes
// cluster's service account issuer).
type Issuer = fakeapi.Issuer

// NewIssuer returns an issuer at url with a new key.
func NewIssuer(url string) (*Issuer, error) { return fakeapi.NewIssuer(url) }

// Trust makes the tenant able to check the tokens of iss (as it would
// from the issuer's discovery document).
func (t *Tenant) Trust(iss *Issuer) {
	if t.Issuers == nil {
		t.Issuers = map[string]*rsa.PublicKey{}
	}
	t.Issuers[iss.URL] = iss.Key
}

// DemoDomain is a verified domain of the demo tenant, which names it as
// well as its id.
const DemoDomain = "example.onmicrosoft.com"

// Demo returns the tenant of `orgsync demo --source entra`: the people of
// the example CSV file (one, frank, without a mailbox: mail null), a
// disabled account, a guest from another tenant and a nested group.
func Demo() Tenant {
	user := func(id, mail, given, sur, loc string, enabled bool) User {
		return User{ID: id, Props: map[string]any{"mail": mail, "userPrincipalName": mail, "givenName": given, "surname": sur,
			"usageLocation": loc, "accountEnabled": enabled, "userType": "Member"}}
	}
	frank := user("u-frank", "frank@example.com", "Frank", "Fuller", "CA", true)
	frank.Props["mail"] = nil // no mailbox
	guest := User{ID: "u-guest", Props: map[string]any{"mail": "pat@agency.example", "userPrincipalName": "pat_agency.example#EXT#@" + DemoDomain,
		"givenName": "Pat", "surname": "Partner", "usageLocation": "US", "accountEnabled": true, "userType": "Guest"}}
	return Tenant{
		ID:      DemoTenantID,
		Domains: []string{DemoDomain, "example.com"},
		// Members that are not users, as real groups have: never synced.
		Others: []Member{{ID: "d-build", DisplayName: "build-agent-01", Kind: "device"},
			{ID: "sp-figma", DisplayName: "Figma SCIM", Kind: "servicePrincipal"}, {ID: "c-agency", DisplayName: "Agency Contact", Kind: "orgContact"}},
		Apps: []App{{ClientID: DemoClientID, Secret: DemoSecret,
			Federated: []FederatedCredential{{Issuer: DemoIssuer, Subject: DemoServiceAccount}}}},
		Users: []User{
			user("u-alice", "alice@example.com", "Alice", "Anders", "US", true),
			user("u-bob", "bob@example.com", "Bob", "Builder", "DE", true),
			user("u-carol", "carol@example.com", "Carol", "Clark", "GB", true),
			user("u-dave", "dave@example.com", "Dave", "Doe", "US", true),
			user("u-erin", "erin@example.com", "Erin", "Evans", "FR", true),
			frank,
			user("u-gina", "gina@example.com", "Gina", "Gone", "US", false), // disabled: left out
			guest, // a guest: left out by default
		},
		Groups: []Group{
			{ID: "g-eng", DisplayName: "Engineering Staff", Members: []string{"u-alice", "u-bob", "g-platform", "u-gina"}},
			{ID: "g-platform", DisplayName: "Platform Team", Members: []string{"u-dave", "d-build"}}, // nested in Engineering Staff
			{ID: "g-design", DisplayName: "Design", Members: []string{"sp-figma", "u-carol", "c-agency", "u-dave", "u-guest"}},
			{ID: "g-marketing", DisplayName: "Marketing", Members: []string{"u-carol", "u-erin"}},
		},
	}
}
