// Package logs builds orgsync's logger (zap): readable console lines on a
// terminal, one JSON object a line otherwise, to standard error or to a
// file rotated by lumberjack. Every line is shown as data on a terminal:
// the control characters a logged value carries are escaped (termsafe),
// and a message cannot end its line.
package logs

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mattn/go-isatty"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/orgsync/orgsync/internal/util/owned"
	"github.com/orgsync/orgsync/internal/util/termsafe"
)

// The log formats.
const (
	FormatAuto    = "auto" // console on a terminal, JSON otherwise
	FormatConsole = "console"
	FormatJSON    = "json"
)

// Options are the configuration's logging settings (the zero Options:
// the defaults, to standard error).
type Options struct {
	Level  string // debug, info (when empty), warn or error
	Format string // FormatAuto when empty
	// File, when set, receives the logs, rotated when it reaches
	// MaxSizeMB megabytes; MaxBackups rotated files are kept (0 keeps
	// all), none older than MaxAgeDays days (0: no age limit).
	File       string
	MaxSizeMB  int
	MaxBackups int
	MaxAgeDays int
}

// New builds the logger from the configuration's logging settings
// overridden by format and level when they are set (the command line's).
// It writes to w (under a termsafe.Writer: the logger escapes its lines
// itself), or to the settings' file when they name one: a file, or a
// folder holding it, that another user could change, or a file that is a
// link, is refused (see owned).
func New(w io.Writer, opts Options, format, level string) (*zap.Logger, error) {
	w = termsafe.Underlying(w)
	if opts.File != "" {
		if err := ownFile(opts.File); err != nil {
			return nil, err
		}
		w = rotatingFile(opts)
	}
	format = cmp.Or(format, opts.Format, FormatAuto)
	level = cmp.Or(level, opts.Level, "info")
	return newLogger(w, format, level)
}

// ownFile checks the log file at path and its folder, when it exists
// (lumberjack makes it), as owned does.
func ownFile(path string) error {
	if dir := filepath.Dir(path); fileExists(dir) {
		if err := owned.Dir("logging.file's folder", dir); err != nil {
			return err
		}
	}
	return owned.File("logging.file", path)
}

// fileExists reports whether there is a file (or folder) at path.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// rotatingFile is the configuration's log file, rotated by lumberjack when
// it reaches maxSizeMB: the rotated files are named with their time and
// compressed, and the oldest beyond maxBackups or maxAgeDays are removed.
func rotatingFile(cfg Options) io.Writer {
	return &lumberjack.Logger{
		Filename:   cfg.File,
		MaxSize:    cfg.MaxSizeMB,
		MaxBackups: cfg.MaxBackups,
		MaxAge:     cfg.MaxAgeDays,
		Compress:   true,
	}
}

// IsTerminal reports whether stream (a writer, one under a
// termsafe.Writer, or a reader) is a terminal.
func IsTerminal(stream any) bool {
	if w, ok := stream.(io.Writer); ok {
		stream = termsafe.Underlying(w)
	}
	f, ok := stream.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newLogger returns a zap logger writing to w: readable console lines, or
// one JSON object a line.
func newLogger(w io.Writer, format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level: %w", err)
	}
	if format == FormatAuto {
		format = FormatJSON
		if IsTerminal(w) {
			format = FormatConsole
		}
	}
	var enc zapcore.Encoder
	colour := false
	switch format {
	case FormatJSON:
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(ec)
	case FormatConsole:
		ec := zap.NewDevelopmentEncoderConfig()
		ec.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05")
		ec.EncodeCaller = nil
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		colour = IsTerminal(w) && colors(w) // coloured once the line is escaped
		enc = zapcore.NewConsoleEncoder(ec)
	default:
		return nil, fmt.Errorf("log format %q: use auto, console or json", format)
	}
	return zap.New(zapcore.NewCore(escaping{enc, colour}, zapcore.Lock(zapcore.AddSync(w)), lvl)), nil
}
