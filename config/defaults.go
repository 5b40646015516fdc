package config

import (
	"path/filepath"
	"time"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/target/umapi"
)

// Defaults of the values that have a sensible one. The target's are the
// service client's (umapi.Default...), applied here so that what Load
// checks and reports is what the client gets.
const (
	DefaultCron   = "0 */2 * * *"
	DefaultListen = "127.0.0.1:9090"
	// DefaultMaxRemovalsPercent is the default safety limit on removals
	// per run, a percentage of the managed users.
	DefaultMaxRemovalsPercent = 10
	// Log file rotation: the size at which the file is rotated and how
	// many rotated files are kept.
	DefaultLogMaxSizeMB  = 100
	DefaultLogMaxBackups = 5
	// The state directory's files: rotated at DefaultStateMaxFileMB,
	// rotated files kept for DefaultStateRetention.
	DefaultStateMaxFileMB = 10
	DefaultStateRetention = 90 * 24 * time.Hour
	// DefaultNotifyTimeout bounds each notification, its retries included.
	DefaultNotifyTimeout = 10 * time.Second
	// DefaultFullEvery is the longest time between two full reads of an
	// organization with incremental runs.
	DefaultFullEvery = 24 * time.Hour
)

// presetDefaults sets, before the file is decoded, the defaults whose zero
// value the file may choose: "maxRemovals: 0" means no limit and
// "resendExpired: false" turns resending off, while a file that says
// nothing gets the default.
func (c *Config) presetDefaults() {
	c.Safety.MaxRemovals = Limit{N: DefaultMaxRemovalsPercent, Percent: true}
	c.Policy.Invites.ResendExpired = true
	c.Logging.MaxBackups = DefaultLogMaxBackups // 0 keeps them all
	c.Logging.MaxSizeMB = DefaultLogMaxSizeMB   // 0 is refused
	// 0 is refused for these three, not taken for the default.
	c.State.MaxFileMB = DefaultStateMaxFileMB
	c.State.Retention = Age(DefaultStateRetention)
	c.Incremental.FullEvery = Age(DefaultFullEvery)
}

// applyDefaults fills in every value the file leaves out.
func (c *Config) applyDefaults() {
	for _, t := range c.targets() {
		t.applyDefaults()
	}
	c.Policy.applyDefaults()
	setDefault(&c.Schedule.Cron, DefaultCron)
	setDefault(&c.Schedule.Listen, DefaultListen)
	setDefault(&c.Logging.Level, "info")
	setDefault(&c.Logging.Format, FormatAuto)
	setDefault(&c.Safety.OnLimit, OnLimitHold)
	c.Notify.applyDefaults()
}

// targets returns the targets as written: the single target, or each of
// the targets list.
func (c *Config) targets() []*Target {
	if len(c.Targets) == 0 {
		return []*Target{&c.Target}
	}
	out := make([]*Target, len(c.Targets))
	for i := range c.Targets {
		out[i] = &c.Targets[i].Target
	}
	return out
}

// applyDefaults fills in the target's values the file leaves out, with the
// service client's defaults.
func (t *Target) applyDefaults() {
	setDefault(&t.AuthBaseURL, t.BaseURL)
	setDefault(&t.Auth.Method, umapi.DefaultAuthMethod)
	setDefault(&t.Limits.Reads, umapi.DefaultReadLimit)
	setDefault(&t.Limits.Requests, umapi.DefaultAppLimit)
	setDefault(&t.Limits.Window, umapi.DefaultLimitWindow)
	setDefault(&t.Timeouts.Request, umapi.DefaultTimeout)
	setDefault(&t.Retries.Max, umapi.DefaultMaxRetries)
	setDefault(&t.Retries.MinWait, umapi.DefaultRetryWaitMin)
	setDefault(&t.Retries.MaxWait, umapi.DefaultRetryWaitMax)
}

// applyDefaults fills in the policy's values the file leaves out.
func (p *Policy) applyDefaults() {
	setDefault(&p.UnmatchedUsers, UnmatchedPreserve)
	if p.UpdateAttributes == nil {
		p.UpdateAttributes = []string{"firstname", "lastname"}
	}
}

// resolvePaths makes the relative file paths of the configuration relative
// to dir, the configuration file's directory.
func (c *Config) resolvePaths(dir string) {
	for _, p := range c.filePaths() {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	for _, r := range c.secretRefs() {
		r.Dir = dir // a secret command runs where its relative file paths are
	}
}

// filePaths lists every file path of the configuration, its secrets'
// files included.
func (c *Config) filePaths() []*string {
	paths := []*string{&c.Policy.ReportFile, &c.Logging.File, &c.Scope.UsersFile, &c.State.Dir}
	for _, t := range c.targets() {
		paths = append(paths, &t.TLS.CAFile)
	}
	for i := range c.Targets {
		if p := c.Targets[i].Policy; p != nil {
			paths = append(paths, &p.ReportFile)
		}
	}
	for i := range c.Sources {
		paths = append(paths, c.Sources[i].filePaths()...)
	}
	paths = append(paths, c.Notify.filePaths()...)
	for _, r := range c.secretRefs() {
		paths = append(paths, &r.File)
	}
	return paths
}

// secretRefs lists every secret reference of the configuration.
func (c *Config) secretRefs() []*secret.Ref {
	var refs []*secret.Ref
	for _, t := range c.targets() {
		refs = append(refs, &t.Auth.ClientSecret, &t.Auth.PrivateKey, &t.Auth.PrivateKeyPassphrase)
	}
	for i := range c.Sources {
		refs = append(refs, c.Sources[i].secretRefs()...)
	}
	refs = append(refs, c.Notify.secretRefs()...)
	return append(refs, &c.Status.Token, &c.Status.Password)
}

// setDefault sets *p to def when it is the zero value (left out of the
// file).
func setDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}
