package config

import (
	"reflect"

	"github.com/orgsync/orgsync/source"
)

// The words of the keys that take one of a few; validation refuses any
// other, and the JSON Schema lists them (see choices).
var (
	onLimits            = []string{OnLimitHold, OnLimitStop}
	unmatchedPolicies   = []string{UnmatchedPreserve, UnmatchedRemoveGroups, UnmatchedRemove, UnmatchedDelete}
	updatableAttributes = []string{"firstname", "lastname", "email", "username"}
	// LogLevels and LogFormats are the words of logging.level and
	// logging.format (and of the --log-level and --log-format flags).
	LogLevels      = []string{"debug", "info", "warn", "error"}
	LogFormats     = []string{FormatAuto, FormatConsole, FormatJSON}
	authMethods    = []string{AuthJWT, AuthOAuth}
	memberChoices  = []string{MembersMapped, MembersAll}
	webhookFormats = []string{WebhookJSON, WebhookSlack, WebhookTeams}
	emailTLSModes  = []string{EmailSTARTTLS, EmailTLS, EmailNone}
	// identityTypeWords are the words reconcile.ParseIdentityType reads,
	// in any letter case: the types' names first, then their short forms.
	identityTypeWords = []string{"federatedID", "enterpriseID", "vendorID", "federated", "enterprise", "vendor", "independent"}
)

// choices are the keys that take one of a few words, by the struct type
// that has the key and the key: the same lists validation checks against.
// A key of a list takes the words for each item. The source kinds give
// their own (source.Chooser).
var choices = map[reflect.Type]map[string]source.Choice{
	reflect.TypeFor[Safety]():          {"onLimit": {Words: onLimits}},
	reflect.TypeFor[Policy]():          {"unmatchedUsers": {Words: unmatchedPolicies}, "updateAttributes": {Words: updatableAttributes}},
	reflect.TypeFor[Exclude]():         {"identityTypes": {Words: identityTypeWords, AnyCase: true}},
	reflect.TypeFor[Logging]():         {"level": {Words: LogLevels}, "format": {Words: LogFormats}},
	reflect.TypeFor[Auth]():            {"method": {Words: authMethods}},
	reflect.TypeFor[NamedTarget]():     {"members": {Words: memberChoices}},
	reflect.TypeFor[Webhook]():         {"format": {Words: webhookFormats}},
	reflect.TypeFor[Email]():           {"tls": {Words: emailTLSModes}},
	reflect.TypeFor[source.Defaults](): {"defaultType": {Words: identityTypeWords, AnyCase: true}},
}
