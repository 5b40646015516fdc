package umsim

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/orgsync/orgsync/target/umwire"
)

// GenOptions size a generated organization.
type GenOptions struct {
	Users      int   // members; a few are disabled, one is a technical account
	UserGroups int   // user groups, each granting one profile; default 10
	Profiles   int   // product profiles, four per product; default 8
	Seed       int64 // the same options give the same State
	OrgID      string
}

// Generate builds a large, deterministic organization for tests and
// benchmarks: three claimed domains (two in one directory, one federated),
// a mix of Enterprise IDs, email and username Federated IDs and
// independent IDs, each in a few user groups and profiles. It has no
// integrations; add one to serve it through the gate.
func Generate(opts GenOptions) *State {
	if opts.UserGroups <= 0 {
		opts.UserGroups = 10
	}
	if opts.Profiles <= 0 {
		opts.Profiles = 8
	}
	if opts.OrgID == "" {
		opts.OrgID = "5EED0000@VendorOrg"
	}
	st := &State{Org: Org{ID: opts.OrgID, Domains: []Domain{
		{Name: "example.com", Directory: "corp", Claimed: true},
		{Name: "example.org", Directory: "corp", Claimed: true},
		{Name: "fed.example.net", Directory: "federated", Claimed: true},
	}}}
	profiles := make([]string, opts.Profiles)
	for i := range profiles {
		if i%4 == 0 {
			st.Products = append(st.Products, Product{Name: "Product " + strconv.Itoa(i/4)})
		}
		profiles[i] = "Product " + strconv.Itoa(i/4) + " Profile " + strconv.Itoa(i%4)
		p := &st.Products[len(st.Products)-1]
		p.Profiles = append(p.Profiles, profiles[i])
	}
	groups := make([]string, opts.UserGroups)
	for i := range groups {
		groups[i] = "Group " + strconv.Itoa(i)
		st.UserGroups = append(st.UserGroups, UserGroup{Name: groups[i], Profiles: []string{profiles[i%len(profiles)]}})
	}
	st.AdminGroups = []string{umwire.PrefixAdmin + groups[0], umwire.PrefixProductAdmin + st.Products[0].Name}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed))
	st.Users = make([]User, opts.Users)
	for i := range st.Users {
		st.Users[i] = genUser(i, rng, groups, profiles)
	}
	if len(st.Users) > 0 {
		st.Users[0].TechnicalAccount = true
	}
	return st
}

var genCountries = []string{"US", "DE", "FR", "GB", "JP", "IN", "BR", "CA"}

// genUser makes user i: 60% Enterprise, 20% email Federated, 10% username
// Federated, 10% independent; 2% disabled; 1-3 groups or profiles.
func genUser(i int, rng *rand.Rand, groups, profiles []string) User {
	n := strconv.Itoa(i)
	u := User{FirstName: "First" + n, LastName: "Last" + n, Country: genCountries[i%len(genCountries)]}
	switch k := i % 10; {
	case k < 6:
		u.Type, u.Email = umwire.TypeEnterpriseID, "user"+n+"@example.com"
	case k < 8:
		u.Type, u.Email = umwire.TypeFederatedID, "fed"+n+"@fed.example.net"
	case k < 9:
		u.Type, u.Email, u.Username, u.Domain = umwire.TypeFederatedID, "fu"+n+"@fed.example.net", "fu"+n, "fed.example.net"
	default:
		u.Type, u.Email, u.Country = umwire.TypeVendorID, "ind"+n+"@mail.example", ""
	}
	if i%50 == 49 {
		u.Status = umwire.StatusDisabled
	}
	u.Groups = make([]string, 0, 3)
	for range 1 + rng.IntN(3) {
		var g string
		if rng.IntN(2) == 0 {
			g = groups[rng.IntN(len(groups))]
		} else {
			g = profiles[rng.IntN(len(profiles))]
		}
		if !slices.Contains(u.Groups, g) {
			u.Groups = append(u.Groups, g)
		}
	}
	return u
}
