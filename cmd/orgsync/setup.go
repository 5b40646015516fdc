package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/envfile"
	"github.com/orgsync/orgsync/internal/util/logs"
)

// setupFlags are the flags of every command that reads the configuration.
type setupFlags struct {
	config  string
	envFile string // --env-file: variables to set first, as the units' EnvironmentFile=
	log     *logFlags
	orgs    string // --orgs, where the command has it (see addOrgsFlag)
	// broken, when set, is what the command does with a configuration
	// that does not load instead of printing its problems as an error:
	// validate prints them as its findings and reads the sources all the
	// same. (A command whose outcome is recorded records and tells its
	// failed run where it can: recordFailure.)
	broken func(std stdio, cerr *config.Error, log *zap.Logger)
	report *string // --report, where the command has it
}

// addOrgsFlag defines --orgs, the organizations a run syncs, and --org,
// the same (the admin commands' flag, which an administrator types here
// too).
func (f *setupFlags) addOrgsFlag(fs *flag.FlagSet) {
	fs.StringVar(&f.orgs, "orgs", "", "only these organizations of targets: (names, comma-separated); default all")
	fs.StringVar(&f.orgs, "org", "", "the same as --orgs")
}

// addSetupFlags defines --config (default starter.DefaultConfig) and the logging
// flags.
func addSetupFlags(fs *flag.FlagSet) *setupFlags {
	f := &setupFlags{log: addLogFlags(fs)}
	fs.StringVar(&f.config, "config", starter.DefaultConfig(), "configuration file; the default is $ORGSYNC_CONFIG when set")
	fs.StringVar(&f.envFile, "env-file", "", "set the variables of this file first (KEY=VALUE lines, as systemd's EnvironmentFile=): "+
		"a run by hand sees the secrets the units see (--env-file /etc/orgsync/orgsync.env)")
	return f
}

// start parses the flags of a command that reads the configuration (at
// most maxArgs arguments), checks its --output value when output is not
// nil, and sets up. It returns false when the command should stop; code is
// then its exit code.
func (f *setupFlags) start(fs *flag.FlagSet, args []string, std stdio, maxArgs int, output *string) (*env, int, bool) {
	if code, ok := parseFlags(fs, args, std, maxArgs); !ok {
		return nil, code, false
	}
	if output != nil && !validOutput(std, fs.Name(), *output) {
		return nil, exitError, false
	}
	if f.report != nil {
		if err := changecontrol.CheckReport(*f.report); err != nil {
			return nil, fail(std, fs.Name(), err), false
		}
	}
	if f.envFile != "" {
		if err := f.loadEnv(fs, std.err); err != nil {
			return nil, fail(std, fs.Name(), err), false
		}
	}
	e, ok := f.setup(std)
	if !ok {
		return nil, exitError, false
	}
	return e, exitOK, true
}

// loadEnv sets the variables of --env-file; ORGSYNC_CONFIG among them
// names the configuration when --config does not.
func (f *setupFlags) loadEnv(fs *flag.FlagSet, warn io.Writer) error {
	if err := envfile.Load(f.envFile, warn); err != nil {
		return err
	}
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "config" })
	if !given {
		f.config = starter.DefaultConfig()
	}
	return nil
}

// env is what a command that works on an organization starts with: its
// configuration and logger.
type env struct {
	cfg *config.Config
	log *zap.Logger
	// interactive is set when the logs go to a terminal: long runs then
	// show their progress.
	interactive bool
	orgs        []string // --orgs
	// control hears the runs: approvals, history, report, notifications.
	control *changecontrol.Control
}

// setup loads the configuration and builds the logger. Configuration
// problems are printed to std.err, every one with its line; warnings are
// logged.
func (f *setupFlags) setup(std stdio) (*env, bool) {
	cfg, err := config.Load(f.config)
	if err != nil {
		var cerr *config.Error
		switch {
		case errors.As(err, &cerr):
			log, err := f.log.logger(std.err, nil)
			switch {
			case err == nil && f.broken != nil:
				f.broken(std, cerr, log)
			case err == nil && std.outcome != nil:
				fmt.Fprintln(std.err, cerr.Error())
				f.recordFailure(std, cerr, log)
			default:
				fmt.Fprintln(std.err, cerr.Error())
			}
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(std.err, "orgsync: there is no configuration file %s: name yours with --config FILE (or $ORGSYNC_CONFIG), or write a starter one with orgsync init --source KIND\n", f.config)
		default:
			fmt.Fprintf(std.err, "orgsync: %v\n", err)
		}
		return nil, false
	}
	log, err := f.log.logger(std.err, &cfg.Logging)
	if err != nil {
		fmt.Fprintf(std.err, "orgsync: %v\n", err)
		return nil, false
	}
	for _, w := range cfg.Warnings {
		log.Warn("configuration: "+w.Message, zap.String("key", w.Path), zap.Int("line", w.Line), zap.String("file", cfg.File))
	}
	if m := std.memory; m != nil {
		log.Info("memory: "+m.String(), zap.Uint64("containerLimitBytes", m.Container), zap.Int64("goMemoryLimitBytes", m.Limit))
	}
	e := &env{cfg: cfg, log: log, interactive: logs.IsTerminal(std.err), control: changecontrol.New(cfg, log)}
	if f.report != nil && *f.report != "" {
		e.control.KeepReport(*f.report)
	}
	if f.orgs != "" {
		e.orgs = strings.Split(f.orgs, ",")
	}
	if o := std.outcome; o != nil {
		e.control.For(o.mode)
		o.env, o.report = e, f.report
	}
	return e, true
}

// recordFailure records and tells the failed run of a command whose
// outcome is recorded when its configuration does not load, where it can
// (changecontrol.FailedToLoad), with the report asked for.
func (f *setupFlags) recordFailure(std stdio, cerr *config.Error, log *zap.Logger) {
	std.outcome.ended = true
	if c := changecontrol.FailedToLoad(cerr, log, std.outcome.mode); c != nil {
		if f.report != nil {
			_ = (&env{control: c}).reportTo(std, *f.report)
		}
		c.Wait()
	}
}

// job makes the run of the configuration with the command line's
// overrides; plansShown says that the command prints the plans.
func (e *env) job(ov run.Overrides, plansShown bool) (*run.Job, error) {
	ov.Orgs = e.orgs
	return run.New(e.cfg, ov, e.runOptions(plansShown))
}

// runOptions are the options of the command's jobs, heard by its change
// control.
func (e *env) runOptions(plansShown bool) run.Options {
	return run.Options{Log: e.log, Interactive: e.interactive, PlansShown: plansShown, Observer: e.control}
}

// runCommand is a command that runs the job (plan, sync, validate,
// daemon): the setup flags, --orgs, and the scope flags when it takes them.
type runCommand struct {
	fs      *flag.FlagSet
	setup   *setupFlags
	scope   *planfile.Flags // nil when the command takes no scope flags
	ov      run.Overrides   // --explain (plan) and --full (plan and sync)
	output  *string         // --output, checked when set
	maxArgs int             // arguments allowed (approve ID)
}

// newRunCommand defines the flags every command that runs the job has.
func newRunCommand(name string, scoped bool) *runCommand {
	fs := flag.NewFlagSet("orgsync "+name, flag.ContinueOnError)
	c := &runCommand{fs: fs, setup: addSetupFlags(fs)}
	c.setup.addOrgsFlag(fs)
	if scoped {
		c.scope = addScopeFlags(fs)
	}
	return c
}

// addFullFlag defines --full: read every organization in full, whatever
// its snapshot.
func (c *runCommand) addFullFlag() {
	c.fs.BoolVar(&c.ov.Full, "full", false, "read every organization in full, whatever its snapshot (with incremental.enabled): find what changed behind orgsync's back")
}

// start parses the flags, sets up and makes the Job; plansShown says that
// the command prints the plans. It returns false when the command should
// stop; code is then its exit code.
func (c *runCommand) start(std stdio, args []string, plansShown bool) (*env, *run.Job, int, bool) {
	e, code, ok := c.setup.start(c.fs, args, std, c.maxArgs, c.output)
	if !ok {
		return nil, nil, code, false
	}
	j, err := c.job(e, plansShown)
	if err != nil {
		return nil, nil, fail(std, c.fs.Name(), run.InPhase(run.PhaseConfig, err)), false
	}
	return e, j, exitOK, true
}

// job makes the command's Job from its flags.
func (c *runCommand) job(e *env, plansShown bool) (*run.Job, error) {
	ov := c.ov
	if c.scope != nil {
		scoped, err := scopeOverrides(*c.scope)
		if err != nil {
			return nil, err
		}
		scoped.Explain, scoped.Full = ov.Explain, ov.Full
		ov = scoped
	}
	return e.job(ov, plansShown)
}
