package source

import "strings"

// Explains reports whether a user known by email and username is the one
// named (by email or username, letter case ignored) in Options.Explain. An
// empty name explains nobody.
func Explains(name, email, username string) bool {
	return name != "" && (strings.EqualFold(name, email) || strings.EqualFold(name, username))
}
