package googlefake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// Key is a service account with its private key: what the key file
// Google issues for it holds.
type Key struct {
	Account ServiceAccount
	private *rsa.PrivateKey
}

// NewKey makes a service account with a new RSA key.
func NewKey(email, clientID string) (*Key, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &Key{Account: ServiceAccount{Email: email, ClientID: clientID, KeyID: "fake-key-" + clientID, Key: &k.PublicKey}, private: k}, nil
}

// File returns the service account's JSON key file, with the token
// endpoint tokenURL.
func (k *Key) File(tokenURL string) []byte {
	der, _ := x509.MarshalPKCS8PrivateKey(k.private) // an RSA key always marshals
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "orgsync-fake", "private_key_id": k.Account.KeyID,
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": k.Account.Email, "client_id": k.Account.ClientID, "token_uri": tokenURL,
	}, "", "  ")
	return b
}

// The read-only scopes of the google source.
var ReadOnlyScopes = []string{scopeBase + "user.readonly", scopeBase + "group.readonly", scopeBase + "group.member.readonly"}

// Demo values: the customer, the domain and the administrator that the
// service account acts for.
const (
	DemoCustomer = "C0fake0demo"
	DemoDomain   = "example.com"
	DemoSubject  = "alice@example.com"
)

// Demo returns the domain of `orgsync demo --source google`: the people
// of the example CSV file (alice an administrator), an archived and a
// suspended account, a group nested in Engineering Staff, and a custom
// schema; acct is delegated the read-only scopes.
func Demo(acct ServiceAccount) Domain {
	user := func(id, mail, first, last, country string) User {
		return User{ID: id, PrimaryEmail: mail, GivenName: first, FamilyName: last, Country: country, OrgUnitPath: "/Staff",
			CustomSchemas: map[string]map[string]any{"Employment": {"costCenter": "CC-" + first, "employeeType": "staff"}}}
	}
	users := []User{
		user("100000000000000000001", "alice@example.com", "Alice", "Anders", "US"),
		user("100000000000000000002", "bob@example.com", "Bob", "Builder", "DE"),
		user("100000000000000000003", "carol@example.com", "Carol", "Clark", "GB"),
		user("100000000000000000004", "dave@example.com", "Dave", "Doe", "US"),
		user("100000000000000000005", "erin@example.com", "Erin", "Evans", "FR"),
		user("100000000000000000006", "frank@example.com", "Frank", "Fuller", "CA"), // archived
		user("100000000000000000007", "gina@example.com", "Gina", "Gone", "US"),     // suspended
	}
	users[0].IsAdmin = true
	users[5].Archived = true
	users[6].Suspended = true
	return Domain{
		CustomerID: DemoCustomer, Name: DemoDomain, Accounts: []ServiceAccount{acct},
		Delegation: map[string][]string{acct.ClientID: ReadOnlyScopes},
		Schemas:    []string{"Employment"},
		Users:      users,
		Groups: []Group{
			{ID: "01engineering00", Email: "engineering@example.com", Name: "Engineering Staff", Members: []string{"100000000000000000001", "100000000000000000002", "100000000000000000007", "01platform00000"}},
			{ID: "01platform00000", Email: "platform@example.com", Name: "Platform Team", Members: []string{"100000000000000000004", "100000000000000000006"}},
			{ID: "01design0000000", Email: "design@example.com", Name: "Design", Members: []string{"100000000000000000003", "100000000000000000004"}},
			{ID: "01marketing0000", Email: "marketing@example.com", Name: "Marketing", Members: []string{"100000000000000000003", "100000000000000000005"}},
		},
	}
}

// Generate returns a domain of n users (user<i>@example.com; user0 an
// administrator), each in perUser of groups groups ("group<j>"), acct
// delegated the read-only scopes: for benchmarks.
func Generate(acct ServiceAccount, n, groups, perUser int) Domain {
	d := Domain{CustomerID: DemoCustomer, Name: DemoDomain, Accounts: []ServiceAccount{acct},
		Delegation: map[string][]string{acct.ClientID: ReadOnlyScopes}, Users: make([]User, n), Groups: make([]Group, groups)}
	for j := range d.Groups {
		d.Groups[j] = Group{ID: fmt.Sprintf("01g%012d", j), Email: fmt.Sprintf("group%d@example.com", j), Name: fmt.Sprintf("group%d", j)}
	}
	for i := range d.Users {
		id := fmt.Sprintf("1%020d", i)
		d.Users[i] = User{ID: id, PrimaryEmail: fmt.Sprintf("user%d@example.com", i), GivenName: "User", FamilyName: fmt.Sprintf("Number %d", i), Country: "US"}
		for k := range perUser {
			g := &d.Groups[(i+k)%groups]
			g.Members = append(g.Members, id)
		}
	}
	d.Users[0].IsAdmin = true
	return d
}

// Issuer is an OpenID Connect issuer of workload tokens (a Kubernetes
// cluster's service account issuer, any OIDC identity provider).
type Issuer = fakeapi.Issuer

// NewIssuer returns an issuer at url with a new key.
func NewIssuer(url string) (*Issuer, error) { return fakeapi.NewIssuer(url) }

// Federate makes the domain's Security Token Service exchange the tokens
// of iss through a provider named name (DemoProvider, for example), and
// returns the provider.
func (d *Domain) Federate(name string, iss *Issuer) Provider {
	if d.Issuers == nil {
		d.Issuers = map[string]*rsa.PublicKey{}
	}
	d.Issuers[iss.URL] = iss.Key
	p := Provider{Name: name, Issuer: iss.URL}
	d.Providers = append(d.Providers, p)
	return p
}

// AllowTokenCreator lets member (a "serviceAccount:<email>" or a
// federated principal) sign JWTs and get tokens as the service account.
func (d *Domain) AllowTokenCreator(account, member string) {
	if d.TokenCreators == nil {
		d.TokenCreators = map[string][]string{}
	}
	account = strings.ToLower(account)
	d.TokenCreators[account] = append(d.TokenCreators[account], member)
}

// The demo's workload identity federation: a provider of a pool trusting
// a Kubernetes cluster's issuer, for the service account DemoWorkload.
const (
	DemoProvider = "projects/100000000042/locations/global/workloadIdentityPools/orgsync/providers/cluster"
	DemoIssuer   = "https://container.googleapis.com/v1/projects/orgsync-fake/locations/europe-west1/clusters/demo"
	DemoWorkload = "system:serviceaccount:orgsync:orgsync"
)

// ExternalAccount returns an external account's configuration file (as
// gcloud iam workload-identity-pools create-cred-config writes it) for
// the provider p of s: its subject token read from source (a
// credential_source object: {"file": ...} or {"url": ..., "format":
// ...}), impersonating the service account impersonate ("": none).
func (s *Server) ExternalAccount(p Provider, source map[string]any, impersonate string) []byte {
	f := map[string]any{"type": "external_account", "audience": "//iam.googleapis.com/" + p.Name,
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": s.URL + STSPath, "credential_source": source}
	if p.AWS {
		f["subject_token_type"] = awsTokenType
	}
	if impersonate != "" {
		f["service_account_impersonation_url"] = s.URL + iamPrefix + impersonate + ":generateAccessToken"
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	return b
}

// TokenAudience is the audience the provider p accepts by default in
// the tokens it exchanges.
func (p Provider) TokenAudience() string { return "https://iam.googleapis.com/" + p.Name }
