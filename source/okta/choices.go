package okta

import "github.com/orgsync/orgsync/source"

// Choices returns the words of the keys that take one of a few
// (source.Chooser).
func (c *Config) Choices() map[string]source.Choice {
	return map[string]source.Choice{
		"dpop":           {Words: DPoPModes},
		"users.statuses": {Words: Statuses},
		"groups.types":   {Words: GroupTypes},
	}
}
