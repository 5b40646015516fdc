package config

import (
	"reflect"
	"testing"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/target/umapi"
)

// clientOwn are the client's settings that the file does not set.
var clientOwn = map[string]bool{"RateMargin": true, "ReadAhead": true, "InvitesPerCall": true, "TokenRefreshMargin": true, "UsertypeUnknown": true}

// TestClientTagsAreTheOneTable: every field of the client's configuration
// is set by exactly one key of the target, or is one of the client's own;
// each client tag names a field that takes the key's value (a secret and
// a list give a string). A field added to the client fails here until it
// is given a key or called the client's own.
func TestClientTagsAreTheOneTable(t *testing.T) {
	t.Parallel()
	set := map[string]string{}
	client := reflect.TypeFor[umapi.Config]()
	for _, s := range (&Target{}).clientSettings() {
		f, ok := client.FieldByName(s.field)
		if !ok {
			t.Errorf("%s: client tag %q names no field of umapi.Config", s.key, s.field)
			continue
		}
		if prev, dup := set[s.field]; dup {
			t.Errorf("%s and %s both set %s", prev, s.key, s.field)
		}
		set[s.field] = s.key
		from := s.value.Type()
		if from == reflect.TypeFor[secret.Ref]() || from == reflect.TypeFor[[]string]() {
			from = reflect.TypeFor[string]()
		}
		if from != f.Type {
			t.Errorf("%s is a %s, its client field %s a %s", s.key, s.value.Type(), s.field, f.Type)
		}
	}
	for i := range client.NumField() {
		name := client.Field(i).Name
		if _, ok := set[name]; ok == clientOwn[name] {
			t.Errorf("umapi.Config.%s: set by a key: %v, the client's own: %v; want one or the other", name, ok, clientOwn[name])
		}
	}
}

// The client's problems are named by the keys that set the fields, under
// the target's path; a secret's with its file.
func TestClientProblemsNameTheKeys(t *testing.T) {
	t.Parallel()
	tg := &NamedTarget{path: "targets[2]", Target: Target{Auth: Auth{PrivateKey: secret.Ref{File: "/k.pem"}}}}
	for field, want := range map[string]string{
		"CAFile": "targets[2].tls.caFile", "ReadLimit": "targets[2].limits.reads", "ProxyURL": "targets[2].proxy",
		"PrivateKeyPEM": "targets[2].auth.privateKey (the file /k.pem)", "Scope": "targets[2].auth.scopes", "RateMargin": "targets[2] (RateMargin)",
	} {
		if got := tg.clientKey(field); got != want {
			t.Errorf("clientKey(%s) = %q, want %q", field, got, want)
		}
	}
}
