package csvfile

import "github.com/orgsync/orgsync/source"

// LocalFile says that the kind reads a local .csv file, named by path.
func (c *Config) LocalFile() source.LocalFile {
	return source.LocalFile{Extensions: []string{".csv"}, Key: "path"}
}
