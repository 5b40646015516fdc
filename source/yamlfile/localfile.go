package yamlfile

import "github.com/orgsync/orgsync/source"

// LocalFile says that the kind reads a local .yaml or .yml file, named by
// path.
func (c *Config) LocalFile() source.LocalFile {
	return source.LocalFile{Extensions: []string{".yaml", ".yml"}, Key: "path"}
}
