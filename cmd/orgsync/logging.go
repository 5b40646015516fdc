package main

import (
	"flag"
	"io"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/util/logs"
)

// logFlags are the logging flags every command that logs has; they
// override the configuration's logging section.
type logFlags struct {
	format string
	level  string
	// tee, when set, also gets every log line (the Windows service's
	// event log).
	tee zapcore.Core
}

// addLogFlags defines --log-format and --log-level on fs.
func addLogFlags(fs *flag.FlagSet) *logFlags {
	f := &logFlags{}
	fs.StringVar(&f.format, "log-format", "", "log format: auto (console on a terminal, else JSON), console or json")
	fs.StringVar(&f.level, "log-level", "", "log level: debug, info, warn or error")
	return f
}

// logger builds the logger from the configuration's logging section (nil
// for defaults) overridden by the flags.
func (f *logFlags) logger(w io.Writer, cfg *config.Logging) (*zap.Logger, error) {
	log, err := logs.New(w, cfg.Options(), f.format, f.level)
	if err != nil || f.tee == nil {
		return log, err
	}
	return log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, f.tee) })), nil
}
