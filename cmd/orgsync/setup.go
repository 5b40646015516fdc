package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

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
	// lastClient was built from lastClientCfg (see client).
	lastClient    *umapi.Client
	lastClientCfg umapi.Config
	// explain names a user (email or username) whose groups plan
	// --explain traces.
	explain string
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
	return &env{cfg: cfg, log: log, interactive: isTerminal(io.err)}, true
}

// client returns the service client of the configuration's target. The
// secrets are read again each time; while they (and the rest of the
// target) are unchanged, the client of the previous call is reused, so
// that a daemon's runs share its token and rate limiters instead of
// signing in again each run.
func (e *env) client() (*umapi.Client, error) {
	cc, err := e.cfg.Target.ClientConfig()
	if err != nil {
		return nil, err
	}
	if e.lastClient != nil && e.lastClientCfg == cc {
		return e.lastClient, nil
	}
	c, err := umapi.New(cc, umapi.WithLogger(e.log.Named("umapi")))
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	e.lastClient, e.lastClientCfg = c, cc
	return c, nil
}
