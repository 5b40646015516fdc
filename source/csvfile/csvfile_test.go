package csvfile

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// identity maps every directory group to the target group of the same name.
var identity = sourcetest.Identity()

// readCSV writes content to a file, reads it with cfg (Path set) and rules.
func readCSV(t *testing.T, content string, cfg Config, rules []mapping.Rule) (*source.Result, string, error) {
	return sourcetest.Read(t, "users.csv", content, rules, func(path string, m *mapping.Mapper) (source.Source, error) {
		cfg.Path = path
		return cfg.Open("sources[0] (csv users.csv)", source.Options{Mapper: m})
	})
}

type wantProblem struct {
	line  int
	field string
	frag  string // part of the reason
}

func checkProblems(t *testing.T, path string, got []source.Problem, want []wantProblem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), problemList(got))
	}
	for i, w := range want {
		p := got[i]
		if p.File != path || p.Line != w.line || p.Field != w.field || !strings.Contains(p.Reason, w.frag) || p.Source == "" {
			t.Errorf("problem %d = %s (source %q), want line %d field %q reason containing %q", i, p, p.Source, w.line, w.field, w.frag)
		}
	}
}

func problemList(ps []source.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

const header = "firstname,lastname,email,country,groups,type,username,domain\n"

func TestReadUsers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		csv   string
		cfg   Config
		rules []mapping.Rule
		want  []reconcile.User
	}{
		{name: "default columns and identity mapping", rules: identity,
			csv: header + "Ann,Lee,ann@example.com,US,\"design, eng\",enterpriseID,,\n",
			want: []reconcile.User{{Type: reconcile.EnterpriseID, Email: "ann@example.com", Domain: "example.com",
				FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"design", "eng"}}}},
		{name: "BOM, CRLF and defaults",
			csv:  "\xef\xbb\xbfemail,country\r\nbob@example.com,\r\ncid@example.com,gb\r\n",
			cfg:  Config{Defaults: source.Defaults{Type: "enterprise", Country: "DE"}},
			want: []reconcile.User{{Type: reconcile.EnterpriseID, Email: "bob@example.com", Domain: "example.com", Country: "DE"}, {Type: reconcile.EnterpriseID, Email: "cid@example.com", Domain: "example.com", Country: "GB"}}},
		{name: "default type is federatedID",
			csv:  "email\nann@example.com\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com"}}},
		{name: "semicolon detected", rules: identity,
			csv:  "email;groups\nann@example.com;a,b\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com", Groups: []string{"a", "b"}}}},
		{name: "tab detected",
			csv:  "email\tfirstname\nann@example.com\tAnn, Jr.\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com", FirstName: "Ann, Jr."}}},
		{name: "tab given", cfg: Config{Delimiter: "tab"},
			csv:  "email\tfirstname\nann@example.com\tAnn; Jr.\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com", FirstName: "Ann; Jr."}}},
		{name: "delimiter in quotes is not counted", cfg: Config{GroupSeparator: "|"}, rules: identity,
			csv:  "\"e;m;a;i;l\",groups\nann@example.com,a|b||a\n",
			want: nil}, // replaced below: the header has no email column
		{name: "custom columns and group separator", rules: identity,
			cfg: Config{GroupSeparator: "|", Columns: Columns{Email: "Mail", FirstName: "Given Name", Groups: "Member Of"}},
			csv: "Given Name,MAIL,Member Of\nAnn,ann@example.com,a|b||A\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com",
				FirstName: "Ann", Groups: []string{"a", "b"}}}},
		{name: "federated by username with domain column, default domain and email domain",
			csv: header + ",,,,,federatedID,jdoe,corp.example.com\n" +
				",,,,,federated,kim,\n" +
				",,lu@mail.example.com,,,,lu,\n" +
				",,,,,,mo@example.com,\n",
			cfg: Config{Defaults: source.Defaults{Domain: "example.org"}},
			want: []reconcile.User{
				{Type: reconcile.FederatedID, Username: "jdoe", Domain: "corp.example.com"},
				{Type: reconcile.FederatedID, Username: "kim", Domain: "example.org"},
				{Type: reconcile.FederatedID, Username: "lu", Email: "lu@mail.example.com", Domain: "mail.example.com"},
				{Type: reconcile.FederatedID, Username: "mo@example.com", Email: "mo@example.com", Domain: "example.com"},
			}},
		{name: "identical duplicate merged, groups union", rules: identity,
			csv: header + "Ann,Lee,ann@example.com,US,a,,,\n" +
				",,ANN@example.com,,\"b,A\",,,\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com",
				FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"a", "b"}}}},
		{name: "unmapped groups are dropped",
			rules: []mapping.Rule{{Directory: "eng", Targets: []string{"Engineering", "All"}}},
			csv:   "email,groups\nann@example.com,\"eng,other\"\n",
			want: []reconcile.User{{Type: reconcile.FederatedID, Email: "ann@example.com", Domain: "example.com",
				Groups: []string{"Engineering", "All"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := readCSV(t, tc.csv, tc.cfg, tc.rules)
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), `no "email" column`) {
					t.Fatalf("err = %v, want a missing email column", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(res.Problems) > 0 {
				t.Fatalf("unexpected problems:\n%s", problemList(res.Problems))
			}
			if !reflect.DeepEqual(res.Users.List(), tc.want) {
				t.Fatalf("users\n got %+v\nwant %+v", res.Users.List(), tc.want)
			}
		})
	}
}

func TestBadRecords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 251)
	csv := header +
		"Ann,Lee,ann@example.com,US,,,,\n" + // 2 good
		"Bob,Ray,not-an-email,US,,,,\n" + // 3
		long + ",Ray,bob@example.com,US,,,,\n" + // 4
		"Cy,Ray,cy@example.com,USA,,,,\n" + // 5
		"Di,Ray,di@example.com,US,,admin,,\n" + // 6
		",,,,,federatedID,jdoe,\n" + // 7: username without domain
		"Ann,Leigh,ann@example.com,US,,,,\n" + // 8: conflicting duplicate
		"Ed,Ray,ed@example.com,us,,,,\n" + // 9 good: lower-case country normalized
		"Fay,Ray,fay@example.com,US\n" + // 10: too few fields
		"Gus,Ray,gus@example.com,US,,enterpriseID,gus2@example.com,\n" + // 11: username differs
		"Hal,\"Ray\nJr\",hal@example.com,XX,,,,\n" + // 12-13: multi-line record, bad country
		",,,,,,,\n" + // 14: empty email
		"Ian,Ray,ian@example.com,US,,vendorID,,bad domain\n" // 15
	res, path, err := readCSV(t, csv, Config{}, nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{3, "email", "not an email address"},
		{4, "firstname", "at most 250"},
		{5, "country", `"USA" is not an ISO 3166-1 alpha-2`},
		{6, "type", `unknown identity type "admin"`},
		{7, "domain", "needs a domain"},
		{8, "lastname", `duplicate of the user on line 2 with a different value ("Lee" there, "Leigh" here)`},
		{10, "", "has 4 fields but the header has 8"},
		{11, "username", "differs from the email"},
		{12, "country", `"XX" is not`},
		{14, "email", "has none: the record is skipped"},
		{15, "domain", `"bad domain" is not a domain`},
	})
	if res.Users.Len() != 2 || res.Users.At(0).LastName != "Lee" || res.Users.At(1).Country != "US" {
		t.Fatalf("users = %+v, want Ann Lee and Ed (country US)", res.Users.List())
	}
	if want := path + ":8 ann@example.com: lastname: duplicate"; !strings.HasPrefix(res.Problems[5].String(), want) {
		t.Errorf("problem text %q, want prefix %q", res.Problems[5].String(), want)
	}
}

func TestAllFieldProblemsOfARecord(t *testing.T) {
	t.Parallel()
	res, path, err := readCSV(t, header+"a,b,c@example.com,,,,,\n"+strings.Repeat("x", 251)+",b,bad,ZZ,,nope,,\n", Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{3, "type", "unknown identity type"},
		{3, "email", "not an email"},
		{3, "firstname", "at most 250"},
		{3, "country", "ZZ"},
	})
}

func TestWholeFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		csv  string
		cfg  Config
		frag string
	}{
		{"empty file", "", Config{}, "the file is empty"},
		{"header only", header, Config{}, "no user records"},
		{"missing email column", "firstname,lastname,login\nA,B,a@example.com\n", Config{}, `:1: the header has no "email" column (it has "firstname", "lastname", "login")`},
		{"misspelt email column", "firstname,lastname,mail\nA,B,a@example.com\n", Config{}, `:1: the header has a column "mail" and no "email" column`},
		{"username without domain column", "username\njdoe\n", Config{}, `no "email" column`},
		{"renamed column missing", "email\na@example.com\n", Config{Columns: Columns{Email: "Mail"}}, `no "Mail" column`},
		{"no valid user", header + "A,B,bad,,,,,\nC,D,worse,,,,,\n", Config{}, "none of its 2 user records is valid"},
		{"bare quote", header + "A,B,a@example.com,US,,,,\nA\"B,C,d@example.com,,,,,\n", Config{}, `:3:2: bare " in non-quoted-field`},
		{"unterminated quote", header + "A,\"B,a@example.com,US,,,,\n", Config{}, "extraneous or missing \" in quoted-field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, path, err := readCSV(t, tc.csv, tc.cfg, nil)
			if err == nil {
				t.Fatalf("Read = %d users, want an error", res.Users.Len())
			}
			if !strings.Contains(err.Error(), tc.frag) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s and contain %q", err, path, tc.frag)
			}
		})
	}
}

func TestUsernameColumnSuffices(t *testing.T) {
	t.Parallel()
	res, _, err := readCSV(t, "username,domain\njdoe,example.com\n", Config{}, nil)
	if err != nil || res.Users.Len() != 1 || res.Users.Key(0) != "jdoe@example.com" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	res, _, err = readCSV(t, "username\njdoe\n", Config{Defaults: source.Defaults{Domain: "example.com"}}, nil)
	if err != nil || res.Users.Len() != 1 || res.Users.At(0).Domain != "example.com" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	cfg := Config{Path: filepath.Join(t.TempDir(), "nope.csv")}
	src, err := cfg.Open("s", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "nope.csv") {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "u.csv")
	if err := os.WriteFile(path, []byte("email\na@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Path: path}
	src, _ := cfg.Open("s", source.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Read(ctx); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cfg := Config{Delimiter: "|", Encoding: "ebcdic", GroupSeparator: " ", Columns: Columns{LastName: "FirstName"},
		Defaults: source.Defaults{Type: "admin", Country: "XX", Domain: "a@b"}}
	got := map[string]string{}
	for _, e := range cfg.Validate() {
		got[e.Field] = e.Reason
	}
	for field, frag := range map[string]string{
		"path": "required", "delimiter": "not a delimiter", "groupSeparator": "blank", "encoding": `"ebcdic" is not a supported encoding: use utf-8`,
		"columns.lastname": "already the firstname column", "defaultType": "not an identity type",
		"defaultCountry": "not an ISO", "defaultDomain": "not a domain",
	} {
		if !strings.Contains(got[field], frag) {
			t.Errorf("%s: %q, want %q", field, got[field], frag)
		}
	}
	if len(got) != 8 {
		t.Errorf("got %d problems, want 8: %v", len(got), got)
	}
	if _, err := cfg.Open("s", source.Options{}); err == nil || !strings.Contains(err.Error(), "path: required") {
		t.Errorf("Open err = %v", err)
	}
	ok := Config{Path: "x.csv", Delimiter: `\t`, Encoding: "Windows-1252"}
	if errs := ok.Validate(); len(errs) != 0 {
		t.Errorf("valid config: %v", errs)
	}
}

// A group that no rule maps is a notice with its first line (once per
// group); it holds nothing back, so it is not a problem.
func TestUnmappedGroupsAreNotices(t *testing.T) {
	t.Parallel()
	rules := []mapping.Rule{{Directory: "eng", Targets: []string{"Engineering"}}}
	csv := "email,groups\nann@example.com,\"eng,other\"\nbob@example.com,\"Other,eng,third\"\ncid@example.com,other\n"
	res, path, err := readCSV(t, csv, Config{}, rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 || res.Users.Len() != 3 {
		t.Fatalf("problems %d, users %d; want 0 and 3", len(res.Problems), res.Users.Len())
	}
	checkProblems(t, path, res.Notices, []wantProblem{
		{2, "groups", `group "other" matches no mapping rule`},
		{3, "groups", `group "Other" matches no mapping rule`},
		{3, "groups", `group "third" matches no mapping rule`},
	})
	if !strings.Contains(res.Notices[0].Reason, `{pattern: "(.*)", targets: ["$1"]}`) {
		t.Errorf("the notice does not say how to map the file's names: %s", res.Notices[0].Reason)
	}
	res, _, err = readCSV(t, csv, Config{}, nil)
	if err != nil || len(res.Notices) != 4 {
		t.Fatalf("without rules: err %v, %d notices, want 4", err, len(res.Notices))
	}
}

// The file reports which groups of exact rules its records name, so that a
// run with an LDAP source too can accept a rule for a group only the file has.
func TestFoundGroups(t *testing.T) {
	t.Parallel()
	rules := []mapping.Rule{{Directory: "eng", Targets: []string{"E"}}, {Directory: "Sales", Targets: []string{"S"}}, {Directory: "absent", Targets: []string{"A"}}}
	res, _, err := readCSV(t, "email,groups\nann@example.com,ENG\nbob@example.com,\"sales,eng\"\n", Config{}, rules)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.FoundGroups, ","); got != "eng,Sales" {
		t.Errorf("FoundGroups = %q, want eng,Sales (as the rules write them, in rule order)", got)
	}
}

// Within one file, a duplicate that gives the type or country where the
// first record left them to the defaults completes the user, no conflict.
func TestDuplicateFillsDefaults(t *testing.T) {
	t.Parallel()
	res, _, err := readCSV(t, "email,type,country\nann@example.com,,\nann@example.com,enterprise,DE\n", Config{Defaults: source.Defaults{Country: "US"}}, nil)
	if err != nil || len(res.Problems) != 0 {
		t.Fatalf("err %v, problems %v", err, res.Problems)
	}
	want := reconcile.User{Type: reconcile.EnterpriseID, Email: "ann@example.com", Domain: "example.com", Country: "DE"}
	if res.Users.Len() != 1 || !reflect.DeepEqual(res.Users.At(0), want) || res.DefaultedAt(0) != 0 {
		t.Errorf("users %+v (defaulted %v), want %+v with nothing defaulted", res.Users.List(), res.Defaulted, want)
	}
}

// A record without an email is reported with the person's name, and says
// that it is skipped.
func TestMissingEmailNamesThePerson(t *testing.T) {
	t.Parallel()
	res, path, err := readCSV(t, header+"Ann,Lee,ann@example.com,US,,,,\nZed,Zero,,US,,,,\n", Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{{3, "email", "the record of Zed Zero has none: the record is skipped"}})
}
