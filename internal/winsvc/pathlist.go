package winsvc

import "strings"

// withDir returns the PATH value list (folders separated by ";") with dir
// added at its end, and whether it was not there yet. Windows compares
// folders without regard to case or a trailing backslash.
func withDir(list, dir string) (string, bool) {
	for _, d := range strings.Split(list, ";") {
		if sameDir(d, dir) {
			return list, false
		}
	}
	if list == "" || strings.HasSuffix(list, ";") {
		return list + dir, true
	}
	return list + ";" + dir, true
}

// withoutDir returns list without dir, and whether it was there.
func withoutDir(list, dir string) (string, bool) {
	var kept []string
	found := false
	for _, d := range strings.Split(list, ";") {
		if sameDir(d, dir) {
			found = true
			continue
		}
		kept = append(kept, d)
	}
	return strings.Join(kept, ";"), found
}

// sameDir reports whether two folders of a PATH are the same.
func sameDir(a, b string) bool {
	return strings.EqualFold(strings.TrimRight(strings.TrimSpace(a), `\`), strings.TrimRight(strings.TrimSpace(b), `\`))
}
