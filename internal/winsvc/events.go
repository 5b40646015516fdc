package winsvc

import (
	"strings"

	"go.uber.org/zap/zapcore"
)

// EventWriter writes to the event log (eventlog.Log does).
type EventWriter interface {
	Info(eid uint32, msg string) error
	Warning(eid uint32, msg string) error
	Error(eid uint32, msg string) error
}

// The event ids orgsync writes, one a kind of event, for the monitoring
// that filters on them.
const (
	EventStarted  uint32 = 1   // the service started
	EventStopped  uint32 = 2   // the service stopped
	EventReload   uint32 = 3   // a reload was asked for
	EventRun      uint32 = 10  // a run's outcome (its summary line)
	EventApproval uint32 = 20  // an approval held, approved, rejected or applied
	EventWarning  uint32 = 100 // any other warning
	EventError    uint32 = 101 // any other error
)

// eventOf returns the event id of a log line and whether it goes to the
// event log: the daemon's start and stop, each run's summary and failure,
// every line about an approval, and every warning and error. Progress and
// the changes themselves stay in the log file.
func eventOf(e zapcore.Entry) (uint32, bool) {
	msg := strings.ToLower(e.Message)
	switch {
	case msg == "daemon started":
		return EventStarted, true
	case msg == "daemon stopped":
		return EventStopped, true
	case strings.Contains(msg, "approv") || strings.Contains(msg, "reject"):
		return EventApproval, true
	case strings.HasPrefix(msg, "summary") || msg == "run failed":
		return EventRun, true
	case e.Level >= zapcore.ErrorLevel:
		return EventError, true
	case e.Level == zapcore.WarnLevel:
		return EventWarning, true
	}
	return 0, false
}

// eventCore is a zap core that writes the log lines eventOf selects to
// the event log, as text: the message and its fields.
type eventCore struct {
	zapcore.LevelEnabler
	enc zapcore.Encoder
	w   EventWriter
}

// NewEventCore returns a core writing the selected log lines at level
// info and above to w; tee it with the logger's own core.
func NewEventCore(w EventWriter) zapcore.Core {
	ec := zapcore.EncoderConfig{MessageKey: "msg", LineEnding: "\r\n", ConsoleSeparator: " "}
	return &eventCore{LevelEnabler: zapcore.InfoLevel, enc: zapcore.NewConsoleEncoder(ec), w: w}
}

func (c *eventCore) With(fields []zapcore.Field) zapcore.Core {
	enc := c.enc.Clone()
	for _, f := range fields {
		f.AddTo(enc)
	}
	return &eventCore{LevelEnabler: c.LevelEnabler, enc: enc, w: c.w}
}

func (c *eventCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if _, ok := eventOf(e); ok && c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *eventCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	id, _ := eventOf(e)
	buf, err := c.enc.EncodeEntry(e, fields)
	if err != nil {
		return err
	}
	msg := strings.TrimRight(buf.String(), "\r\n")
	buf.Free()
	switch {
	case e.Level >= zapcore.ErrorLevel:
		return c.w.Error(id, msg)
	case e.Level == zapcore.WarnLevel:
		return c.w.Warning(id, msg)
	}
	return c.w.Info(id, msg)
}

func (c *eventCore) Sync() error { return nil }
