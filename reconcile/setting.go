package reconcile

// Setting is one setting of a Policy, in the reconciler's own words. The
// plan's words name a setting where it is what would change them (the
// limit that withheld the removals, the setting that would create a
// missing group); what a setting is called where the policy came from (a
// configuration's key, a command-line flag) is the caller's to say:
// Policy.Names.
type Setting string

// The settings the plan's words name.
const (
	SettingUnmatched            Setting = "unmatched"            // Policy.Unmatched
	SettingExclude              Setting = "exclude"              // Policy.ExcludeTypes, ExcludeGroups, ExcludeUsernames
	SettingCreateUserGroups     Setting = "createUserGroups"     // Policy.CreateUserGroups
	SettingResendExpiredInvites Setting = "resendExpiredInvites" // Policy.ResendExpiredInvites
	SettingMaxRemovals          Setting = "maxRemovals"          // Policy.MaxRemovals
	SettingMaxChanges           Setting = "maxChanges"           // Policy.MaxChanges
)

// Settings lists the settings the plan's words name.
func Settings() []Setting {
	return []Setting{SettingUnmatched, SettingExclude, SettingCreateUserGroups, SettingResendExpiredInvites,
		SettingMaxRemovals, SettingMaxChanges}
}

// Names names settings as the caller writes them. The reconciler writes
// no name of its own for a setting but its Setting word: a nil Names, or
// one that answers "", names a setting so.
type Names func(Setting) string

// Of is the name of s.
func (n Names) Of(s Setting) string {
	if n != nil {
		if name := n(s); name != "" {
			return name
		}
	}
	return string(s)
}

// With returns n, but naming s as name.
func (n Names) With(s Setting, name string) Names {
	return func(x Setting) string {
		if x == s {
			return name
		}
		return n.Of(x)
	}
}
