package winsvc

import "testing"

func TestPathListKeepsEveryOtherFolder(t *testing.T) {
	t.Parallel()
	const dir = `C:\Program Files\orgsync\`
	for _, c := range []struct{ in, added, removed string }{
		{`C:\Windows;C:\Windows\System32`, `C:\Windows;C:\Windows\System32;C:\Program Files\orgsync\`, `C:\Windows;C:\Windows\System32`},
		{`C:\Windows;c:\program files\ORGSYNC;C:\Tools`, `C:\Windows;c:\program files\ORGSYNC;C:\Tools`, `C:\Windows;C:\Tools`},
		{``, `C:\Program Files\orgsync\`, ``},
		{`C:\Windows;`, `C:\Windows;C:\Program Files\orgsync\`, `C:\Windows`},
		{`%SystemRoot%;C:\Program Files\orgsync`, `%SystemRoot%;C:\Program Files\orgsync`, `%SystemRoot%`},
	} {
		if got, _ := withDir(c.in, dir); got != c.added {
			t.Errorf("withDir(%q) = %q, want %q", c.in, got, c.added)
		}
		if got, _ := withoutDir(c.added, dir); got != c.removed {
			t.Errorf("withoutDir(%q) = %q, want %q", c.added, got, c.removed)
		}
	}
}
