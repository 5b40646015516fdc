package googlefake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
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
