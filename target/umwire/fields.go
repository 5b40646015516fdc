package umwire

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The specification's rules for the fields of a user and of an
// organization, used by the client's callers to check what they will send
// and by the simulator to refuse what the service refuses.

// countryCodes holds every ISO 3166-1 alpha-2 code.
var countryCodes = func() map[string]bool {
	const all = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
		"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
		"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP " +
		"KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT " +
		"MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
		"SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG " +
		"UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
	m := make(map[string]bool, 250)
	for _, c := range strings.Fields(all) {
		m[c] = true
	}
	return m
}()

// IsCountryCode reports whether c is an ISO 3166-1 alpha-2 code in upper case.
func IsCountryCode(c string) bool { return countryCodes[c] }

// CheckEmail returns an error saying what is wrong with an email address,
// or nil: it must have a local part, an @ and a domain, no spaces, and at
// most MaxEmailLength characters.
func CheckEmail(email string) error {
	if email == "" {
		return fmt.Errorf("email is empty")
	}
	if n := utf8.RuneCountInString(email); n > MaxEmailLength {
		return fmt.Errorf("email has %d characters, the service allows at most %d", n, MaxEmailLength)
	}
	at := strings.LastIndexByte(email, '@')
	if at <= 0 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n") {
		return fmt.Errorf("%q is not an email address (want local@domain)", email)
	}
	if _, err := mail.ParseAddress(email); err != nil {
		return fmt.Errorf("%q is not an email address (want local@domain)", email)
	}
	return nil
}

// CheckName returns an error when a first or last name is longer than the
// service allows.
func CheckName(name string) error {
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return fmt.Errorf("has %d characters, the service allows at most %d", n, MaxNameLength)
	}
	return nil
}

// CheckGroupName returns an error when a group's name is longer than
// the service allows a user group's (MaxUserGroupName characters): such
// a group cannot exist in the organization, and a name of any length
// would be kept in every history entry and run record that names it.
func CheckGroupName(name string) error {
	if n := utf8.RuneCountInString(name); n > MaxUserGroupName {
		return fmt.Errorf("group name has %d characters, the service allows at most %d", n, MaxUserGroupName)
	}
	return nil
}

// orgIDPattern is the form of an organization id: <hex>@VendorOrg, the
// prefix before the @ a hexadecimal number.
var orgIDPattern = regexp.MustCompile(`^[0-9A-Fa-f]+@VendorOrg$`)

// OrgIDForm describes an organization id for error messages.
const OrgIDForm = "<hex>@VendorOrg"

// IsOrgID reports whether id has the form of an organization id.
func IsOrgID(id string) bool { return orgIDPattern.MatchString(id) }
