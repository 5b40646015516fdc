package view

import (
	"bytes"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestAdminViews: the admin commands' tables have their columns aligned
// under the header, and their JSON is the service's objects, indented,
// with an empty list as [] and one user as an object.
func TestAdminViews(t *testing.T) {
	t.Parallel()
	users := []umwire.User{
		{Email: "ann@example.com", Type: "federatedID", FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"Design", "Eng"}},
		{Email: "bob.longname@example.com", Type: "adobeID"},
	}
	invite := umwire.Invite{Email: "cy@example.com", LastSentDTS: 1764061200000, InvitedBy: umwire.InvitedBy{Email: "admin@example.com"}}
	product := umwire.Product{ID: "p1", Code: "CC", Name: "Creative Cloud", UserCount: 3, ConfigurationCount: 2, LicenseQuota: 10}
	tests := []struct {
		name  string
		write func(b *bytes.Buffer, format string) error
		text  string
		json  string
	}{
		{"users", func(b *bytes.Buffer, f string) error { return Users(b, users, f) },
			"EMAIL                     TYPE         FIRST  LAST  COUNTRY  GROUPS\n" +
				"ann@example.com           federatedID  Ann    Lee   US       Design, Eng\n" +
				"bob.longname@example.com  adobeID                            \n",
			`[
  {
    "email": "ann@example.com",
    "firstname": "Ann",
    "lastname": "Lee",
    "country": "US",
    "type": "federatedID",
    "groups": [
      "Design",
      "Eng"
    ]
  },
  {
    "email": "bob.longname@example.com",
    "type": "adobeID"
  }
]
`},
		{"no users", func(b *bytes.Buffer, f string) error { return Users(b, nil, f) },
			"EMAIL  TYPE  FIRST  LAST  COUNTRY  GROUPS\n", "[]\n"},
		{"user", func(b *bytes.Buffer, f string) error { return User(b, &users[1], f) },
			"EMAIL                     TYPE     FIRST  LAST  COUNTRY  GROUPS\nbob.longname@example.com  adobeID                        \n",
			"{\n  \"email\": \"bob.longname@example.com\",\n  \"type\": \"adobeID\"\n}\n"},
		{"invites", func(b *bytes.Buffer, f string) error { return Invites(b, []umwire.Invite{invite}, f) },
			"EMAIL           LAST SENT             INVITED BY\ncy@example.com  2025-11-25T09:00:00Z  admin@example.com\n",
			`[
  {
    "email": "cy@example.com",
    "inviteCode": "",
    "lastSentDTS": 1764061200000,
    "invitedBy": {
      "id": "",
      "email": "admin@example.com",
      "firstName": "",
      "lastName": "",
      "countryCode": ""
    }
  }
]
`},
		{"invite done", func(b *bytes.Buffer, f string) error {
			return InviteDone(b, "cy@example.com", "revoked", f)
		}, "invite of cy@example.com revoked\n", "{\n  \"email\": \"cy@example.com\",\n  \"done\": \"revoked\"\n}\n"},
		{"products", func(b *bytes.Buffer, f string) error { return Products(b, []umwire.Product{product}, f) },
			"ID  CODE  NAME            USERS  PROFILES  QUOTA\np1  CC    Creative Cloud  3      2         10\n",
			"[\n  {\n    \"id\": \"p1\",\n    \"code\": \"CC\",\n    \"name\": \"Creative Cloud\",\n    \"userCount\": 3,\n    \"configurationCount\": 2,\n    \"licenseQuota\": 10\n  }\n]\n"},
	}
	for _, tt := range tests {
		for format, want := range map[string]string{"text": tt.text, "json": tt.json} {
			var b bytes.Buffer
			if err := tt.write(&b, format); err != nil || b.String() != want {
				t.Errorf("%s as %s: %v\n%s\nwant\n%s", tt.name, format, err, b.String(), want)
			}
		}
	}
}
