package logs

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// colors turns on the escape sequences of the console w writes to
// (virtual terminal processing, Windows 10 and later), and reports
// whether it shows colours: an older console would print the sequences.
func colors(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	return mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 ||
		windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
