// Package config reads orgsync's configuration: one YAML file naming the
// target organization (target:) or organizations (targets:, each with a
// name that mapping targets use as name::Group) and how to reach them, the
// sources in order, the mapping rules, the policy, the safety limits, the
// schedule and the logging.
//
// Loading is strict and reports everything at once: unknown keys and values
// of the wrong kind are found by walking the YAML node tree against the Go
// types (so each problem carries its line), then the decoded values are
// defaulted and validated, including each source's own Validate, and every
// problem is returned in one *Error as "path (line N): what is wrong".
// Secrets are never written in the file: they are secret.Ref values naming an
// environment variable or a file.
package config

import (
	"time"

	"github.com/orgsync/orgsync/internal/util/logs"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umapi"
)

// Config is the whole configuration file.
type Config struct {
	// Target is the one organization of a file without targets:; Load
	// also makes it Targets[0], named default.
	Target Target `yaml:"target"`
	// Targets are the organizations to sync, each with a name; the first
	// is the primary (unqualified mapping targets are its groups).
	Targets  []NamedTarget  `yaml:"targets"`
	Sources  []Source       `yaml:"sources"`
	Mapping  []mapping.Rule `yaml:"mapping"`
	Policy   Policy         `yaml:"policy"`
	Scope    Scope          `yaml:"scope"`
	Safety   Safety         `yaml:"safety"`
	Schedule Schedule       `yaml:"schedule"`
	Logging  Logging        `yaml:"logging"`
	State    State          `yaml:"state"`
	// Incremental configures incremental runs.
	Incremental Incremental `yaml:"incremental"`
	Notify      Notify      `yaml:"notify"`
	Status      Status      `yaml:"status"`

	// File is the path the configuration was read from.
	File string `yaml:"-"`
	// Warnings are problems that do not stop a run (a private key readable
	// by others, a frequent schedule that was explicitly allowed).
	Warnings []Problem `yaml:"-"`

	// multi is set when the file has targets: (see MultiOrg).
	multi bool
	// valid are the targets' policies, in their order, as Load checked
	// them (see ValidPolicy).
	valid []*reconcile.ValidPolicy
}

// Target says which organization to manage and how to reach the service.
// Its settings are the service client's (umapi.Config): the client tag of
// each names the client's field it sets (see ClientConfig).
type Target struct {
	// OrgID is the organization id, "<hex>@VendorOrg". Required.
	OrgID string `yaml:"orgId" client:"OrgID"`
	// BaseURL is the service's base address (without /v2/usermanagement).
	// Required.
	BaseURL string `yaml:"baseURL" client:"BaseURL"`
	// AuthBaseURL is the token server's base address; default BaseURL.
	AuthBaseURL string   `yaml:"authBaseURL" client:"AuthBaseURL"`
	Auth        Auth     `yaml:"auth"`
	Limits      Limits   `yaml:"limits"`
	Timeouts    Timeouts `yaml:"timeouts"`
	Retries     Retries  `yaml:"retries"`
	TLS         TLS      `yaml:"tls"`
	// Proxy is an HTTP(S) proxy URL; default: the HTTPS_PROXY environment.
	Proxy string `yaml:"proxy" client:"ProxyURL"`
}

// Auth methods (the service client's).
const (
	AuthJWT   = umapi.AuthJWT
	AuthOAuth = umapi.AuthOAuth
)

// Auth holds the integration's credentials, secrets by reference only.
type Auth struct {
	// Method is "jwt" (JWT exchange, default) or "oauth" (client credentials).
	Method       string     `yaml:"method" client:"AuthMethod"`
	ClientID     string     `yaml:"clientId" client:"ClientID"`
	ClientSecret secret.Ref `yaml:"clientSecret" client:"ClientSecret"`
	// TechnicalAccountID and PrivateKey are needed by the jwt method.
	TechnicalAccountID string     `yaml:"technicalAccountId" client:"TechAccountID"`
	PrivateKey         secret.Ref `yaml:"privateKey" client:"PrivateKeyPEM"`
	// PrivateKeyPassphrase is where the passphrase of an encrypted
	// (PKCS#8) private key is; unset for a key that is not encrypted.
	PrivateKeyPassphrase secret.Ref `yaml:"privateKeyPassphrase" client:"PrivateKeyPassphrase"`
	// Scopes are requested by the oauth method.
	Scopes []string `yaml:"scopes" client:"Scope"`
}

// Limits are the service's rate limits the client keeps to: at most Reads
// listing and lookup requests and at most Requests requests in all per
// Window (the service's limits are 25 and 100 a minute).
type Limits struct {
	Reads    int           `yaml:"reads" client:"ReadLimit"`
	Requests int           `yaml:"requests" client:"AppLimit"`
	Window   time.Duration `yaml:"window" client:"LimitWindow"`
}

// Timeouts bound single HTTP requests.
type Timeouts struct {
	Request time.Duration `yaml:"request" client:"Timeout"`
}

// Retries bound how a failed request (429, 5xx, timeout, dropped connection)
// is retried: at most Max retries, with exponential back-off and jitter
// between MinWait and MaxWait.
type Retries struct {
	Max     int           `yaml:"max" client:"MaxRetries"`
	MinWait time.Duration `yaml:"minWait" client:"RetryWaitMin"`
	MaxWait time.Duration `yaml:"maxWait" client:"RetryWaitMax"`
}

// TLS configures certificate verification of the service and token server.
type TLS struct {
	// CAFile is a PEM bundle of extra certificate authorities.
	CAFile string `yaml:"caFile" client:"CAFile"`
	// InsecureSkipVerify turns verification off; for tests only.
	InsecureSkipVerify bool `yaml:"insecureSkipVerify" client:"InsecureSkipVerify"`
}

// Unmatched-user policies: what happens to users of the organization that
// are in no source.
const (
	UnmatchedPreserve     = "preserve"
	UnmatchedRemoveGroups = "remove-groups"
	UnmatchedRemove       = "remove"
	UnmatchedDelete       = "delete"
)

// Policy says what orgsync manages and how.
type Policy struct {
	// ManagedGroups are managed in addition to the targets of the mapping
	// rules: memberships in them that no source gives are removed.
	ManagedGroups []string `yaml:"managedGroups"`
	// UserGroups names the target groups that are user groups (as opposed to
	// product profiles and admin groups).
	UserGroups []string `yaml:"userGroups"`
	Exclude    Exclude  `yaml:"exclude"`
	// UnmatchedUsers is preserve (default), remove-groups, remove or delete.
	UnmatchedUsers string `yaml:"unmatchedUsers"`
	// ReportFile, when set, receives a CSV list of the unmatched users.
	ReportFile string `yaml:"reportFile"`
	// UpdateAttributes are the attributes updated on existing organization-
	// owned users: firstname, lastname, email, username. Default the names.
	UpdateAttributes []string `yaml:"updateAttributes"`
	Invites          Invites  `yaml:"invites"`
	// CreateUserGroups creates user groups named by the mapping that do not
	// exist yet.
	CreateUserGroups bool `yaml:"createUserGroups"`
}

// Exclude lists users that are never touched.
type Exclude struct {
	IdentityTypes []string `yaml:"identityTypes"`
	Groups        []string `yaml:"groups"`
	// Usernames are regular expressions matched against the username.
	Usernames []string `yaml:"usernames"`
}

// Invites says what happens to pending invites.
type Invites struct {
	RevokeUnmatched bool `yaml:"revokeUnmatched"`
	// ResendExpired (default true) invites again a desired user whose
	// invite expired.
	ResendExpired bool `yaml:"resendExpired"`
	// RefreshGroups (default false) sends the groups of pending invites
	// again on every run; they went with the invite when it was sent.
	RefreshGroups bool `yaml:"refreshGroups"`
}

// Safety limits a run: over either, nothing destructive is applied.
type Safety struct {
	// MaxRemovals is a count or a percentage of the managed users
	// ("10%", default); 0 means no limit.
	MaxRemovals Limit `yaml:"maxRemovals"`
	// MaxChanges limits all changes; 0 (default) means no limit.
	MaxChanges Limit `yaml:"maxChanges"`
	// OnLimit is what a run over a limit does: hold (default) applies the
	// changes that take nothing away and keeps the destructive ones as a
	// pending approval in the state directory; stop applies nothing.
	OnLimit string `yaml:"onLimit"`
}

// What a run over a safety limit does (Safety.OnLimit).
const (
	OnLimitHold = "hold"
	OnLimitStop = "stop"
)

// State configures the state directory, where orgsync keeps the history
// of applied changes, the run records and the approvals. Without Dir a run
// keeps none of them.
type State struct {
	Dir string `yaml:"dir"`
	// MaxFileMB is the size at which a history or run-record file is
	// rotated; default 10.
	MaxFileMB int `yaml:"maxFileMB"`
	// Retention is how long rotated files are kept; default 90d.
	Retention Age `yaml:"retention"`
}

// Incremental configures incremental runs: with Enabled (and State.Dir,
// where each organization's snapshot is kept), a run plans from the
// snapshot of the organization instead of reading all its users, and
// reads them all again every FullEvery (and whenever the snapshot is in
// doubt).
type Incremental struct {
	Enabled bool `yaml:"enabled"`
	// FullEvery is the longest time between two full reads; default 24h
	// (also in days: 1d).
	FullEvery Age `yaml:"fullEvery"`
}

// Schedule configures the daemon.
type Schedule struct {
	// Cron is a standard 5-field cron expression or a descriptor such as
	// @every 2h; default "0 */2 * * *" (every two hours).
	Cron string `yaml:"cron"`
	// AllowFrequentSchedule allows runs closer together than two hours.
	AllowFrequentSchedule bool `yaml:"allowFrequentSchedule"`
	// Timezone is the IANA time zone (Europe/Berlin) the cron expression is
	// read in; default the machine's local time. The expression may instead
	// start with CRON_TZ=<zone>.
	Timezone string `yaml:"timezone"`
	// RunAtStart runs once when the daemon starts.
	RunAtStart bool `yaml:"runAtStart"`
	// Listen is the address of /healthz, /readyz, /metrics and the status
	// page; default 127.0.0.1:9090 (this machine only).
	Listen string `yaml:"listen"`
}

// Log formats (the logger's).
const (
	FormatAuto    = logs.FormatAuto
	FormatConsole = logs.FormatConsole
	FormatJSON    = logs.FormatJSON
)

// Logging configures the log output.
type Logging struct {
	// Level is debug, info (default), warn or error.
	Level string `yaml:"level"`
	// Format is auto (default: console on a terminal, JSON otherwise),
	// console or json.
	Format string `yaml:"format"`
	// File, when set, receives the logs instead of standard error, rotated
	// when it reaches MaxSizeMB megabytes (default 100); MaxBackups rotated
	// files are kept (default 5; 0 keeps all), none older than MaxAgeDays
	// days (0, default: no age limit).
	File       string `yaml:"file"`
	MaxSizeMB  int    `yaml:"maxSizeMB"`
	MaxBackups int    `yaml:"maxBackups"`
	MaxAgeDays int    `yaml:"maxAgeDays"`
}

// Options are the logger's settings from this section (nil: the defaults).
func (l *Logging) Options() logs.Options {
	if l == nil {
		return logs.Options{}
	}
	return logs.Options{Level: l.Level, Format: l.Format, File: l.File,
		MaxSizeMB: l.MaxSizeMB, MaxBackups: l.MaxBackups, MaxAgeDays: l.MaxAgeDays}
}
