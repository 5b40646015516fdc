package oktafake

import "fmt"

// Generate returns an organization with the API token token and n ACTIVE
// users (user<i>@example.com), each in perUser of groups groups
// ("group<j>"), for benchmarks.
func Generate(token string, n, groups, perUser int) Org {
	o := Org{APITokens: []string{token}, Users: make([]User, n), Groups: make([]Group, groups)}
	for j := range o.Groups {
		o.Groups[j] = Group{ID: fmt.Sprintf("00g%017d", j), Name: fmt.Sprintf("group%d", j)}
	}
	for i := range o.Users {
		id := fmt.Sprintf("00u%017d", i)
		mail := fmt.Sprintf("user%d@example.com", i)
		o.Users[i] = User{ID: id, Status: "ACTIVE", Profile: map[string]any{
			"login": mail, "email": mail, "firstName": "User", "lastName": fmt.Sprintf("Number %d", i), "countryCode": "US",
		}}
		for k := range perUser {
			g := &o.Groups[(i+k)%groups]
			g.Members = append(g.Members, id)
		}
	}
	return o
}

// DemoToken is the API token of the demo organization (public, fake).
const DemoToken = "demo-okta-token-not-a-real-token"

// Demo returns the organization of `orgsync demo --source okta`: the
// people of the example CSV file (one whose password expired) and a
// suspended account, in three groups of their own besides the built-in
// Everyone and a group an app imported, as a real organization has.
func Demo() Org {
	user := func(id, mail, first, last, country, status string) User {
		return User{ID: id, Status: status, Profile: map[string]any{"login": mail, "email": mail, "firstName": first,
			"lastName": last, "countryCode": country}}
	}
	return Org{
		APITokens: []string{DemoToken},
		Users: []User{
			user("00u0000000000000alice", "alice@example.com", "Alice", "Anders", "US", "ACTIVE"),
			user("00u00000000000000bob", "bob@example.com", "Bob", "Builder", "DE", "ACTIVE"),
			user("00u0000000000000carol", "carol@example.com", "Carol", "Clark", "GB", "ACTIVE"),
			user("00u00000000000000dave", "dave@example.com", "Dave", "Doe", "US", "ACTIVE"),
			user("00u00000000000000erin", "erin@example.com", "Erin", "Evans", "FR", "ACTIVE"),
			user("00u0000000000000frank", "frank@example.com", "Frank", "Fuller", "CA", "PASSWORD_EXPIRED"),
			user("00u00000000000000gina", "gina@example.com", "Gina", "Gone", "US", "SUSPENDED"), // left out
		},
		Groups: []Group{
			{ID: "00g00000000000000eng", Name: "Engineering Staff", Members: []string{"00u0000000000000alice", "00u00000000000000bob", "00u00000000000000dave", "00u00000000000000gina"}},
			{ID: "00g00000000000design", Name: "Design", Members: []string{"00u0000000000000carol", "00u00000000000000dave"}},
			{ID: "00g00000000marketing", Name: "Marketing", Members: []string{"00u0000000000000carol", "00u00000000000000erin"}},
			{ID: "00g00000000everyone", Name: "Everyone", Type: "BUILT_IN", Members: []string{"00u0000000000000alice", "00u00000000000000bob",
				"00u0000000000000carol", "00u00000000000000dave", "00u00000000000000erin", "00u0000000000000frank", "00u00000000000000gina"}},
			{ID: "00g0000000000appsync", Name: "Salesforce Users", Type: "APP_GROUP", Members: []string{"00u0000000000000alice"}},
		},
	}
}
