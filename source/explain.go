package source

import "strings"

// Explainer is a source that can say how it built one user's groups and
// fields, for `orgsync plan --explain`: Explain asks it to fill
// Result.Traces for the records of that user.
type Explainer interface {
	// Explain names the user by email or username (letter case ignored).
	Explain(user string)
}

// Explains reports whether a user known by email and username is the one
// named (by email or username, letter case ignored). An empty name
// explains nobody.
func Explains(name, email, username string) bool {
	return name != "" && (strings.EqualFold(name, email) || strings.EqualFold(name, username))
}
