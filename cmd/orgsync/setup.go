package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/target/umapi"
)

// defaultConfigPath is used when neither --config nor ORGSYNC_CONFIG is set.
const defaultConfigPath = "orgsync.yaml"

// setupFlags are the flags of every command that reads the configuration.
type setupFlags struct {
	config string
	log    *logFlags
	orgs   string // --orgs, where the command has it (see addOrgsFlag)
}

// addOrgsFlag defines --orgs, the organizations a run syncs, and --org,
// the same (the admin commands' flag, which an administrator types here
// too).
func (f *setupFlags) addOrgsFlag(fs *flag.FlagSet) {
	fs.StringVar(&f.orgs, "orgs", "", "sync only these organizations of targets: (names, comma-separated); default all")
	fs.StringVar(&f.orgs, "org", "", "the same as --orgs")
}

// addSetupFlags defines --config (default $ORGSYNC_CONFIG, else
// orgsync.yaml) and the logging flags.
func addSetupFlags(fs *flag.FlagSet) *setupFlags {
	def := os.Getenv("ORGSYNC_CONFIG")
	if def == "" {
		def = defaultConfigPath
	}
	f := &setupFlags{log: addLogFlags(fs)}
	fs.StringVar(&f.config, "config", def, "configuration file; the default is $ORGSYNC_CONFIG when set")
	return f
}

// start parses the flags of a command that reads the configuration (at
// most maxArgs arguments), checks its --output value when output is not
// nil, and sets up. It returns false when the command should stop; code is
// then its exit code.
func (f *setupFlags) start(fs *flag.FlagSet, args []string, io stdio, maxArgs int, output *string) (*env, int, bool) {
	if ok, code := parseFlags(fs, args, io, maxArgs); !ok {
		return nil, code, false
	}
	if output != nil && !validOutput(io, fs.Name(), *output) {
		return nil, exitError, false
	}
	e, ok := f.setup(io)
	if !ok {
		return nil, exitError, false
	}
	return e, exitOK, true
}

// env is what a command that works on an organization starts with: its
// configuration and logger.
type env struct {
	cfg *config.Config
	log *zap.Logger
	// interactive is set when the logs go to a terminal: long runs then
	// show their progress.
	interactive bool
	// selected are the organizations a run syncs (--orgs; default all).
	selected []*config.NamedTarget
	// explain names a user (email or username) whose groups plan
	// --explain traces.
	explain string
	// clients are the last client of each organization, by name (see
	// client); mu guards them.
	mu      sync.Mutex
	clients map[string]cachedClient
	// keeper opens the state directory when first needed.
	keeper stateKeeper
}

// cachedClient is a service client with the configuration it was built
// from.
type cachedClient struct {
	client *umapi.Client
	cfg    umapi.Config
}

// setup loads the configuration and builds the logger. Configuration
// problems are printed to io.err, every one with its line; warnings are
// logged.
func (f *setupFlags) setup(io stdio) (*env, bool) {
	cfg, err := config.Load(f.config)
	if err != nil {
		var cerr *config.Error
		if errors.As(err, &cerr) {
			fmt.Fprintln(io.err, cerr.Error())
		} else {
			fmt.Fprintf(io.err, "orgsync: %v\n", err)
		}
		return nil, false
	}
	log, err := f.log.logger(io.err, &cfg.Logging)
	if err != nil {
		fmt.Fprintf(io.err, "orgsync: %v\n", err)
		return nil, false
	}
	for _, w := range cfg.Warnings {
		log.Warn("configuration: "+w.Message, zap.String("key", w.Path), zap.Int("line", w.Line), zap.String("file", cfg.File))
	}
	e := &env{cfg: cfg, log: log, interactive: isTerminal(io.err)}
	if e.selected, err = e.selectOrgs(f.orgs); err != nil {
		fmt.Fprintf(io.err, "orgsync: %v\n", err)
		return nil, false
	}
	return e, true
}

// selectOrgs returns the targets named by --orgs (a comma-separated list
// of names; all when empty), in the configuration's order.
func (e *env) selectOrgs(names string) ([]*config.NamedTarget, error) {
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	all := len(want) == 0
	var out []*config.NamedTarget
	for i := range e.cfg.Targets {
		t := &e.cfg.Targets[i]
		if all || want[t.Name] {
			out = append(out, t)
			delete(want, t.Name)
		}
	}
	if len(want) > 0 {
		unknown := slices.Sorted(maps.Keys(want))
		return nil, e.noSuchOrg("--orgs", unknown[0])
	}
	return out, nil
}

// client returns the service client of organization t, with rate limiters
// of its own. The secrets are read again each time; while they (and the
// rest of the target) are unchanged, the client of the previous call is
// reused, so that a daemon's runs share its token and rate limiters
// instead of signing in again each run.
func (e *env) client(t *config.NamedTarget) (*umapi.Client, error) {
	cc, err := t.ClientConfig()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if last, ok := e.clients[t.Name]; ok && last.cfg == cc {
		return last.client, nil
	}
	c, err := umapi.New(cc, umapi.WithLogger(e.orgLog(t).Named("umapi")))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(), err)
	}
	if e.clients == nil {
		e.clients = map[string]cachedClient{}
	}
	e.clients[t.Name] = cachedClient{client: c, cfg: cc}
	return c, nil
}

// target returns the organization named name, or the primary when name is
// empty.
func (e *env) target(name string) (*config.NamedTarget, error) {
	if name == "" {
		return e.cfg.Primary(), nil
	}
	for i := range e.cfg.Targets {
		if e.cfg.Targets[i].Name == name {
			return &e.cfg.Targets[i], nil
		}
	}
	return nil, e.noSuchOrg("--org", name)
}

// noSuchOrg is the error of a flag naming an organization the
// configuration does not have: it lists those it has.
func (e *env) noSuchOrg(flag, name string) error {
	if !e.cfg.MultiOrg() {
		return fmt.Errorf("%s: no organization %q in %s: it has a single target: (named %s); name organizations with targets:",
			flag, name, e.cfg.File, config.DefaultTargetName)
	}
	names := make([]string, len(e.cfg.Targets))
	for i := range e.cfg.Targets {
		names[i] = e.cfg.Targets[i].Name
	}
	return fmt.Errorf("%s: no organization %q in %s; its organizations (targets[].name) are %s", flag, name, e.cfg.File, strings.Join(names, ", "))
}
