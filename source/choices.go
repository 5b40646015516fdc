package source

// Choice is the set of words a key takes.
type Choice struct {
	Words []string
	// AnyCase is set when letter case does not matter.
	AnyCase bool
}

// Chooser is implemented by a kind's Config whose keys take one of a few
// words: by key path inside the block ("users.scope"; a list's key gives
// the words of its items), the words its Validate accepts. The
// configuration's JSON Schema lists them, and a test holds each kind's
// Validate to them. The keys of Defaults are the configuration's own.
type Chooser interface {
	Choices() map[string]Choice
}
