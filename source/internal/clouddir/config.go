package clouddir

import (
	"fmt"
	"time"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// UserFields are what every cloud source's users block holds besides
// which users it reads: the templates and defaults of the user fields,
// and the extra attributes its expressions read. Each kind inlines it in
// its users block.
type UserFields struct {
	source.Templates `yaml:",inline"`
	source.Defaults  `yaml:",inline"`
	// ExtraAttributes are more user attributes for the source's
	// expressions (user.attributes.<name>).
	ExtraAttributes []string `yaml:"extraAttributes,omitempty"`
}

// Spec returns the templates and defaults.
func (u *UserFields) Spec() usertmpl.Spec {
	return usertmpl.Spec{Templates: u.Templates, Defaults: u.Defaults}
}

// Validate reports the problems of the templates, the defaults and the
// extra attributes, named under "users."; example names attributes of
// the kind, for the message about a bad name.
func (u *UserFields) Validate(example string) []diag.FieldError {
	spec := u.Spec()
	return append(usertmpl.ValidateExtra("users.", u.ExtraAttributes, example), spec.Validate("users.")...)
}

// Uses returns what a cloud source's block names: its secrets (by key)
// and users.extraAttributes (source.Config).
func (u *UserFields) Uses(secrets map[string]*secret.Ref) source.Uses {
	return source.Uses{Secrets: secrets, ExtraAttributesKey: "users.extraAttributes", ExtraAttributes: u.ExtraAttributes}
}

// Requests are the request settings every cloud source has.
type Requests struct {
	// PageSize is how many users a page holds (default the API's
	// largest).
	PageSize int `yaml:"pageSize,omitempty"`
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration `yaml:"timeout,omitempty"`
}

// DefaultTimeout bounds each request unless timeout says otherwise.
const DefaultTimeout = time.Minute

// Validate reports the problems of the settings; maxPage is the API's
// largest page.
func (r *Requests) Validate(maxPage int) []diag.FieldError {
	var errs []diag.FieldError
	if r.PageSize < 0 || r.PageSize > maxPage {
		errs = append(errs, diag.FieldError{Field: "pageSize", Reason: fmt.Sprintf("must be between 1 and %d (leave it out for %d)", maxPage, maxPage)})
	}
	if r.Timeout < 0 {
		errs = append(errs, diag.FieldError{Field: "timeout", Reason: "must not be negative"})
	}
	return errs
}

// SetDefaults fills in the page size (maxPage) and the timeout when they
// are not set.
func (r *Requests) SetDefaults(maxPage int) {
	if r.PageSize == 0 {
		r.PageSize = maxPage
	}
	if r.Timeout == 0 {
		r.Timeout = DefaultTimeout
	}
}

// CheckURLs reports the keys (key, value pairs) whose value is set and
// not a web URL.
func CheckURLs(pairs ...string) []diag.FieldError {
	var errs []diag.FieldError
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := pairs[i+1]; v != "" {
			if _, err := weburl.Parse(v); err != nil {
				errs = append(errs, diag.FieldError{Field: pairs[i], Reason: err.Error()})
			}
		}
	}
	return errs
}

// Kind is what a cloud source kind gives Open.
type Kind struct {
	// Problems are those of the configuration as written (its Validate).
	Problems []diag.FieldError
	// Users are the user fields of the configuration with its defaults,
	// and Defaults the kind's default templates.
	Users    *UserFields
	Defaults usertmpl.Spec
	API      API
}

// Open returns the source named name of a cloud kind, or every problem
// of its configuration (a diag.FieldErrors). It does not sign in yet:
// Read does, each time.
func Open(name string, o source.Options, k Kind) (*Source, error) {
	if err := diag.Err(k.Problems); err != nil {
		return nil, err
	}
	return newSource(name, k.Users.Spec(), k.Defaults, k.Users.ExtraAttributes, o, k.API)
}
