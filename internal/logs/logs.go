// Package logs builds orgsync's logger (zap): readable console lines on a
// terminal, one JSON object a line otherwise, to standard error or to a
// file rotated by lumberjack.
package logs

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/orgsync/orgsync/config"
)

// New builds the logger from the configuration's logging section (nil
// for defaults) overridden by format and level when they are set (the
// command line's). It writes to w, or to the section's file when it names
// one.
func New(w io.Writer, cfg *config.Logging, format, level string) (*zap.Logger, error) {
	cfgFormat, cfgLevel := config.FormatAuto, "info"
	if cfg != nil {
		cfgFormat, cfgLevel = cfg.Format, cfg.Level
		if cfg.File != "" {
			w = rotatingFile(cfg)
		}
	}
	if format == "" {
		format = cfgFormat
	}
	if level == "" {
		level = cfgLevel
	}
	return newLogger(w, format, level)
}

// rotatingFile is the configuration's log file, rotated by lumberjack when
// it reaches maxSizeMB: the rotated files are named with their time and
// compressed, and the oldest beyond maxBackups or maxAgeDays are removed.
func rotatingFile(cfg *config.Logging) io.Writer {
	return &lumberjack.Logger{
		Filename:   cfg.File,
		MaxSize:    cfg.MaxSizeMB,
		MaxBackups: cfg.MaxBackups,
		MaxAge:     cfg.MaxAgeDays,
		Compress:   true,
	}
}

// IsTerminal reports whether stream (a writer or a reader) is a terminal.
func IsTerminal(stream any) bool {
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
	if format == config.FormatAuto {
		format = config.FormatJSON
		if IsTerminal(w) {
			format = config.FormatConsole
		}
	}
	var enc zapcore.Encoder
	switch format {
	case config.FormatJSON:
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(ec)
	case config.FormatConsole:
		ec := zap.NewDevelopmentEncoderConfig()
		ec.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05")
		ec.EncodeCaller = nil
		if IsTerminal(w) {
			ec.EncodeLevel = zapcore.CapitalColorLevelEncoder
		}
		enc = zapcore.NewConsoleEncoder(ec)
	default:
		return nil, fmt.Errorf("log format %q: use auto, console or json", format)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), lvl)), nil
}
