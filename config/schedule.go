package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// MinInterval is the shortest time between two scheduled runs allowed
// without allowFrequentSchedule: the service recommends syncs no more often
// than every two hours.
const MinInterval = 2 * time.Hour

// scheduleSamples is how many successive runs ShortestInterval looks at:
// enough to cover a day of an hourly list such as "0 1,2 * * *".
const scheduleSamples = 200

// ParseSchedule parses a standard cron expression or a descriptor
// (@hourly, @every 2h), optionally prefixed with CRON_TZ=<IANA zone> (or
// TZ=), in the local time zone unless the prefix names one.
func ParseSchedule(expr string) (cron.Schedule, error) {
	s, err := cron.ParseStandard(expr)
	if err == nil {
		err = checkSteps(expr)
	}
	if err != nil {
		return nil, fmt.Errorf("not a cron expression (5 fields, or @every 2h, optionally after CRON_TZ=Europe/Berlin): %w", err)
	}
	return s, nil
}

// cronFields name the fields of a cron expression and how many values
// each has (a step must be smaller).
var cronFields = []struct {
	name string
	size int
}{{"minute", 60}, {"hour", 24}, {"day of month", 31}, {"month", 12}, {"day of week", 7}}

// checkSteps refuses a step a field cannot take (*/70 in the minutes),
// which the cron parser takes as "only the first value".
func checkSteps(expr string) error {
	if hasZonePrefix(expr) {
		_, expr, _ = strings.Cut(expr, " ")
	}
	fields := strings.Fields(expr)
	if len(fields) != len(cronFields) {
		return nil // a descriptor (@hourly, @every 2h)
	}
	for i, f := range fields {
		for _, part := range strings.Split(f, ",") {
			_, step, ok := strings.Cut(part, "/")
			if n, err := strconv.Atoi(step); ok && err == nil && n >= cronFields[i].size {
				return fmt.Errorf("%s: step %d is out of range: the %s field has %d values", part, n, cronFields[i].name, cronFields[i].size)
			}
		}
	}
	return nil
}

// Parse parses the schedule: the cron expression, in the time zone of
// Timezone when set (else of a CRON_TZ= prefix, else local time).
func (s *Schedule) Parse() (cron.Schedule, error) {
	sched, err := ParseSchedule(s.Cron)
	if err != nil || s.Timezone == "" {
		return sched, err
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone %q: %w", s.Timezone, err)
	}
	if spec, ok := sched.(*cron.SpecSchedule); ok {
		spec.Location = loc
	}
	return sched, nil
}

// hasZonePrefix reports whether a cron expression names its time zone.
func hasZonePrefix(expr string) bool {
	return strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=")
}

// ShortestInterval returns the shortest time between two successive runs of
// s, looking at the runs that follow from.
func ShortestInterval(s cron.Schedule, from time.Time) time.Duration {
	if c, ok := s.(cron.ConstantDelaySchedule); ok {
		return c.Delay
	}
	shortest := time.Duration(1<<63 - 1)
	prev := s.Next(from)
	for i := 0; i < scheduleSamples && !prev.IsZero(); i++ {
		next := s.Next(prev)
		if next.IsZero() {
			break
		}
		if d := next.Sub(prev); d < shortest {
			shortest = d
		}
		prev = next
	}
	return shortest
}

// validate checks the cron expression and refuses (or, when allowed, warns
// about) runs closer together than MinInterval.
func (s *Schedule) validate(v *validation) {
	if s.Timezone != "" {
		if _, err := time.LoadLocation(s.Timezone); err != nil {
			v.errorf("schedule.timezone", "%q is not a time zone: use an IANA name such as Europe/Berlin, America/New_York or UTC", s.Timezone)
		} else if hasZonePrefix(s.Cron) {
			v.errorf("schedule.timezone", "schedule.cron names its time zone already (CRON_TZ=): set it in one place")
		}
	}
	sched, err := ParseSchedule(s.Cron)
	if err != nil {
		v.errorf("schedule.cron", "%v", err)
		return
	}
	every := ShortestInterval(sched, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if every >= MinInterval {
		return
	}
	if !s.AllowFrequentSchedule {
		v.errorf("schedule.cron", "runs every %s; the service recommends no more often than every %s: set allowFrequentSchedule: true to allow it", every, MinInterval)
		return
	}
	v.warnf("schedule.cron", "runs every %s, more often than the recommended %s (allowed by allowFrequentSchedule)", every, MinInterval)
}
