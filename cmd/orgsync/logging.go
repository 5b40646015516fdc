package main

import (
	"flag"
	"io"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/util/logs"
)

// logFlags are the logging flags every command that logs has; they
// override the configuration's logging section.
type logFlags struct {
	format string
	level  string
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
	return logs.New(w, cfg.Options(), f.format, f.level)
}
