package csvfile

import (
	"strings"
	"testing"
)

// A column whose header misspells a field's ("group" for groups, "e-mail"
// for email) fails the source with one message naming both and the fix:
// read as it is, every user would lose every managed group, or the file
// would have "no email column".
func TestMisspeltColumnFailsTheSource(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ head, col, want string }{
		{"firstname,lastname,email,country,group", "group", "groups"},
		{"firstname,lastname,e-mail,country,groups", "e-mail", "email"},
		{"first_name,lastname,email,country,groups", "first_name", "firstname"},
	} {
		_, path, err := readCSV(t, c.head+"\nAnn,Lee,ann@example.com,US,eng\n", Config{}, nil)
		want := path + `:1: the header has a column "` + c.col + `" and no "` + c.want + `" column: rename the column to ` + c.want
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v\nwant %s", c.head, err, want)
		}
	}
	// A column that is near no field's is any other column: ignored.
	if _, _, err := readCSV(t, "firstname,lastname,email,country,groups,department\nAnn,Lee,ann@example.com,US,eng,R&D\n", Config{}, nil); err != nil {
		t.Errorf("an extra column: %v", err)
	}
}
