package csvfile

import (
	"strings"
	"testing"
)

// TestAGroupNameOverTheServicesLimitIsRefusedWithItsLine replays the
// group-name bound of issue 33 (finding 11: a 1 MB group name filled the
// history): a record whose groups give a target group of more than 255
// characters (the service's limit of a user group's name) is refused at
// read with its line, its problem quoting only the start of the name; a
// name of 255 characters is taken.
func TestAGroupNameOverTheServicesLimitIsRefusedWithItsLine(t *testing.T) {
	t.Parallel()
	huge, most := strings.Repeat("G", 1<<20), strings.Repeat("g", 255)
	csv := header +
		"Ann,Lee,ann@example.com,US," + most + ",,,\n" + // 2: taken
		"Bob,Ray,bob@example.com,US,\"Design," + huge + "\",,,\n" + // 3: refused
		"Cy,Ray,cy@example.com,US," + most + "é,,,\n" // 4: 256 characters, refused
	res, path, err := readCSV(t, csv, Config{}, identity)
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{3, "groups", "group name has 1048576 characters, the service allows at most 255"},
		{4, "groups", "group name has 256 characters, the service allows at most 255"},
	})
	if res.Users.Len() != 1 || res.Users.At(0).Email != "ann@example.com" || res.Users.At(0).Groups[0] != most {
		t.Errorf("users %+v, want Ann with the group of 255 characters", res.Users)
	}
	if n := len(res.Problems[0].String()); n > 1000 {
		t.Errorf("the problem quotes %d bytes of the name", n)
	}
}
