package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap/zapcore"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/winsvc"
)

// asService runs orgsync daemon under the Service Control Manager when it
// started the process (args: daemon and its flags, as the service was
// registered), and returns its exit code; ok is false otherwise (the
// daemon from a console, any other command). With no logging.file in the
// configuration, the logs go to the installation's log file
// (%ProgramData%\orgsync\logs\orgsync.log): a service has no standard
// error.
func asService(args []string) (code int, ok bool) {
	if len(args) == 0 || args[0] != "daemon" {
		return 0, false
	}
	logFile := starter.Installed().LogFile
	log := &lumberjack.Logger{Filename: logFile, MaxSize: 100, MaxBackups: 5, Compress: true}
	defer log.Close()
	std := stdio{out: log, err: log}
	code, err := winsvc.Run(func(ctx context.Context, reload <-chan struct{}, events zapcore.Core) int {
		_ = os.MkdirAll(filepath.Dir(logFile), 0o700)
		return serveDaemon(ctx, std, args[1:], reload, events)
	})
	if errors.Is(err, winsvc.ErrNotService) {
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(std.err, "orgsync: running as the service %s: %v\n", winsvc.Name, err)
	}
	return code, true
}
