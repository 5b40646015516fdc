// Command wincredwrite stores a generic credential in Windows Credential
// Manager as cmdkey /generic:TARGET /user:USER /pass:SECRET does (the
// secret as UTF-16), for the Wine test: Wine has no cmdkey.
//
//	wincredwrite TARGET USER SECRET
package main

import (
	"fmt"
	"os"
	"unicode/utf16"

	"github.com/danieljoos/wincred"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: wincredwrite TARGET USER SECRET")
		os.Exit(2)
	}
	c := wincred.NewGenericCredential(os.Args[1])
	c.UserName = os.Args[2]
	for _, u := range utf16.Encode([]rune(os.Args[3])) {
		c.CredentialBlob = append(c.CredentialBlob, byte(u), byte(u>>8))
	}
	if err := c.Write(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
