package source

import (
	"path/filepath"
	"slices"
	"strings"
)

// LocalFile says what local file a kind reads: the commands that read
// sources without the network (orgsync test, migrate's check) read the
// kinds that have one, and find the kind of a file by its name.
type LocalFile struct {
	// Extensions are the extensions of the file's name the kind reads,
	// lower case with the dot (".csv").
	Extensions []string
	// Key is the key of the kind's block that names the file ("path").
	Key string
}

// ReadsLocalFile is implemented by the Config of a kind that reads one
// local file and needs no network.
type ReadsLocalFile interface {
	LocalFile() LocalFile
}

// LocalFile returns the local file k reads, and false for a kind that
// reads from a server (or the zero Kind).
func (k Kind) LocalFile() (LocalFile, bool) {
	if k.New == nil {
		return LocalFile{}, false
	}
	if r, ok := k.New().(ReadsLocalFile); ok {
		return r.LocalFile(), true
	}
	return LocalFile{}, false
}

// ForFile returns the kind that reads the local file name, by its
// extension, with what it says of it.
func (ks Kinds) ForFile(name string) (Kind, LocalFile, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	for _, k := range ks {
		if f, ok := k.LocalFile(); ok && slices.Contains(f.Extensions, ext) {
			return k, f, true
		}
	}
	return Kind{}, LocalFile{}, false
}

// FileExtensions lists the extensions of the local files the kinds read,
// in the registry's order.
func (ks Kinds) FileExtensions() []string {
	var out []string
	for _, k := range ks {
		if f, ok := k.LocalFile(); ok {
			out = append(out, f.Extensions...)
		}
	}
	return out
}
