package migrate

import (
	"path/filepath"
	"strings"
)

// csvColumns are the incumbent's column name settings, their default
// column names and the orgsync field they name (whose own default column
// name is the field's name).
var csvColumns = []struct{ key, def, field string }{
	{"email_column_name", "email", "email"},
	{"first_name_column_name", "firstname", "firstname"},
	{"last_name_column_name", "lastname", "lastname"},
	{"country_column_name", "country", "country"},
	{"groups_column_name", "groups", "groups"},
	{"identity_type_column_name", "type", "type"},
	{"username_column_name", "username", "username"},
	{"domain_column_name", "domain", "domain"},
}

// pythonEncodings are Python's names of the encodings orgsync reads, by
// their normalized spelling, with orgsync's name.
var pythonEncodings = map[string]string{
	"utf8": "utf-8", "utf_8": "utf-8", "u8": "utf-8", "utf": "utf-8", "utf_8_sig": "utf-8", "utf8_sig": "utf-8",
	"utf_16": "utf-16", "utf16": "utf-16", "utf_16_le": "utf-16le", "utf_16le": "utf-16le", "utf_16_be": "utf-16be", "utf_16be": "utf-16be",
	"latin1": "latin1", "latin_1": "latin1", "iso_8859_1": "latin1", "iso8859_1": "latin1", "l1": "latin1", "8859": "latin1",
	"cp1252": "windows-1252", "windows_1252": "windows-1252",
}

// csvConnector translates connector-csv.yml and the CSV file the
// incumbent reads (--connector csv FILE, --users file FILE).
func (m *migration) csvConnector(src *source, f merged) {
	b, at := src.block, src.at
	path := m.inv.csvFile
	fp := f.get("file_path")
	switch {
	case path != "":
		b.set("path", m.pathFor(path), "from "+m.csvOrigin()+" (relative to the main file's directory, where the incumbent runs)")
		m.rep.add(NotUsed, nil, "the command line's or invocation_defaults' file wins over it", fp)
	case fp != nil:
		path = fp.str()
		b.set("path", m.pathFor(path), "from "+fp.origin())
		m.rep.add(Translated, []string{at + ".path"}, "", fp)
	default:
		b.set("path", "FILL IN", "the incumbent is given the file on its command line")
		m.rep.FillIn = append(m.rep.FillIn, at+".path: the CSV file (the incumbent is given it with --users file FILE or --connector csv FILE)")
	}
	m.csvDelimiter(src, f, path)
	if s := f.get("string_encoding"); s != nil {
		if enc, ok := pythonEncodings[normalizeEncoding(s.str())]; ok {
			if enc != "utf-8" {
				b.set("encoding", enc, "from "+s.origin())
			}
			m.rep.add(Translated, []string{at + ".encoding"}, "", s)
		} else {
			m.rep.add(NoEquivalent, nil, "orgsync reads CSV files in utf-8, utf-16, latin1 and windows-1252: convert the file to UTF-8 (iconv -f "+s.str()+" -t utf-8)", s)
		}
	}
	for _, c := range csvColumns {
		s := f.get(c.key)
		if s == nil {
			continue
		}
		if !strings.EqualFold(s.str(), c.field) {
			b.set("columns."+c.field, s.str(), "from "+s.origin())
			if c.field != "groups" { // what the hook reads by the column's name
				if src.columns == nil {
					src.columns = map[string]string{}
				}
				src.columns[s.str()] = c.field
			}
		}
		m.rep.add(Translated, []string{at + ".columns." + c.field}, "", s)
	}
	if s := f.get("logger_name"); s != nil {
		m.rep.add(NoEquivalent, nil, "orgsync names the source in its logs by its position and kind (sources[0] (csv …))", s)
	}
	b.set("shortRows", "empty", "a row with fewer fields than the header is read with the missing trailing fields empty, as the incumbent reads it")
	src.item.set("set.type", adobeIDType, "the incumbent's CSV files write adobeID, orgsync's vendorID")
	m.filters = append(m.filters, `user.email.contains("@")`)
	m.rep.Differences = append(m.rep.Differences,
		"CSV rows: the incumbent skips a row without an email (with an @), which orgsync's filter expression leaves alone; it merges two rows of one email (the later values win, the groups add up), where orgsync reports a second row that disagrees as a bad record (nobody loses access in that run)")
}

// csvOrigin names the option that gives the CSV file.
func (m *migration) csvOrigin() string {
	if o := m.inv.opt("users"); o.first() == "file" {
		return o.from()
	}
	return m.inv.opt("connector").from()
}

// csvDelimiter translates delimiter: without one the incumbent takes a
// comma for a .csv file and a tab otherwise.
func (m *migration) csvDelimiter(src *source, f merged, path string) {
	s := f.get("delimiter")
	d, from := s.str(), originOr(s, "")
	if d == "" {
		d, from = "\t", "the incumbent's delimiter for a file not named .csv: a tab"
		if strings.EqualFold(filepath.Ext(path), ".csv") {
			d, from = ",", "the incumbent's delimiter for a .csv file: a comma"
		}
	}
	if d == "\t" {
		d = "tab"
	}
	src.block.set("delimiter", d, from)
	m.rep.add(Translated, []string{src.at + ".delimiter"}, "", s)
}

// normalizeEncoding is Python's normalization of an encoding name.
func normalizeEncoding(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(name)))
}
