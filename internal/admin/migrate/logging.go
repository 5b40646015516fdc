package migrate

import (
	"path/filepath"
	"strings"
)

// logLevels are the incumbent's log levels with orgsync's.
var logLevels = map[string]string{"critical": "error", "error": "error", "warning": "warn", "warn": "warn", "info": "info", "debug": "debug"}

// translateLogging translates logging: orgsync logs to one place, the log
// file when there is one, else standard error.
func (m *migration) translateLogging() {
	get := func(k string) *setting { return m.main.get("logging." + k) }
	if s := m.main.get("logging"); s != nil {
		s.done = true
	}
	toFile, _ := get("log_to_file").boolean()
	dir, name := get("file_log_directory"), get("file_log_name_format")
	fileLevel, consoleLevel := get("file_log_level"), get("console_log_level")
	if toFile {
		m.logFile(get("log_to_file"), dir, name)
		m.logLevel(fileLevel)
		m.rep.add(NoEquivalent, nil, "orgsync writes its log to one place: to logging.file instead of the console when there is one (a cron job or service manager keeps standard error too)", consoleLevel)
	} else {
		m.rep.add(Translated, nil, "no log file: orgsync logs to standard error", get("log_to_file"))
		m.logLevel(consoleLevel)
		m.rep.add(NotUsed, nil, "log_to_file is off", dir, name, fileLevel)
	}
	if s := get("log_progress"); s != nil {
		m.rep.add(Differs, nil, "on a terminal orgsync logs the progress of a long read or send every 5 seconds; otherwise it logs each page read at debug level", s)
	}
}

// logFile writes logging.file: the incumbent's directory (relative to the
// main file, default logs) and file name; a name with a date format
// becomes orgsync.log, which orgsync rotates itself.
func (m *migration) logFile(on, dir, name *setting) {
	d := firstNonEmpty(dir.str(), "logs")
	n := firstNonEmpty(name.str(), "{:%Y-%m-%d}.log")
	note := ""
	if strings.Contains(n, "{") {
		n = "orgsync.log"
		note = "orgsync rotates its log file by size (logging.maxSizeMB) and names each rotated file with its time; logging.maxAgeDays removes old ones. The incumbent started a file per date"
	}
	path := filepath.Join(d, n)
	m.root.set("logging.file", m.pathFor(path), "from "+on.file.name+": logging.log_to_file, file_log_directory ("+d+") and file_log_name_format")
	m.rep.add(Translated, []string{"logging.file"}, "the directory must exist (orgsync does not create it)", on, dir)
	if name != nil {
		m.rep.add(Differs, []string{"logging.file"}, note, name)
	}
	m.root.set("logging.format", "console", "readable lines, as the incumbent's log file (orgsync writes JSON to a file otherwise)")
}

// logLevel writes logging.level from the incumbent's level setting s.
func (m *migration) logLevel(s *setting) {
	if s == nil {
		return
	}
	l, ok := logLevels[strings.ToLower(s.str())]
	if !ok {
		m.rep.add(NoEquivalent, nil, "not a log level of the incumbent: orgsync logs at info", s)
		return
	}
	m.root.set("logging.level", l, "from "+s.origin())
	note := ""
	if strings.EqualFold(s.str(), "critical") {
		note = "orgsync has no level above error"
	}
	m.rep.add(Translated, []string{"logging.level"}, note, s)
}
