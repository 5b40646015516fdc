package starter

import (
	"cmp"
	"os"
	"strings"
)

// Installed is this system's installation layout: %ProgramData%\orgsync.
func Installed() Layout { return WindowsLayout(cmp.Or(os.Getenv("ProgramData"), `C:\ProgramData`)) }

// sameFolder compares folders as Windows does, without regard to case.
func sameFolder(a, b string) bool { return strings.EqualFold(a, b) }

// newline ends the lines of the files init writes: Notepad before
// Windows Server 2019 shows a file with bare line feeds as one line.
const newline = "\r\n"
