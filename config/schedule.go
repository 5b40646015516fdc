package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// MinInterval is the shortest time between two scheduled runs allowed
// without allowFrequentSchedule: the service recommends syncs no more often
// than every two hours.
const MinInterval = 2 * time.Hour

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
// s on the clock of its time zone, over every day of a whole Gregorian
// cycle (400 years, a whole number of weeks): every month length, leap
// day and weekday a date can fall on counts. A change to or from daylight
// saving time does not: it moves the clock, not the schedule. A schedule
// that never runs twice has the longest duration.
func ShortestInterval(s cron.Schedule) time.Duration {
	switch s := s.(type) {
	case cron.ConstantDelaySchedule:
		return s.Delay
	case *cron.SpecSchedule:
		return specInterval(s)
	}
	return never // ParseSchedule makes no other kind
}

// never is the interval of a schedule that never runs twice.
const never = time.Duration(1<<63 - 1)

// gregorianCycle is how many days the calendar takes to repeat itself.
const gregorianCycle = 146097

// specInterval is ShortestInterval of a cron expression: the shortest gap
// between two runs of one day, or between a running day's last run and
// the next running day's first.
func specInterval(s *cron.SpecSchedule) time.Duration {
	times := secondsOfDay(s)
	if len(times) == 0 {
		return never
	}
	shortest := int64(math.MaxInt64)
	for i := 1; i < len(times); i++ {
		shortest = min(shortest, times[i]-times[i-1])
	}
	span := times[len(times)-1] - times[0]
	if shortest > 86400-span { // two running days may come closer
		shortest = min(shortest, daysApart(s)*86400-span)
	}
	if shortest > int64(never/time.Second) {
		return never
	}
	return time.Duration(shortest) * time.Second
}

// daysApart returns the fewest days between two running days of s (the
// cycle's length when one day a cycle runs; longer when none does).
func daysApart(s *cron.SpecSchedule) int64 {
	fewest, first, prev := int64(math.MaxInt32), -1, -1
	d := civilDay{year: 2000, month: time.January, day: 1, weekday: time.Saturday}
	for i := 0; i < gregorianCycle && fewest > 1; i, d = i+1, d.next() {
		if !d.runs(s) {
			continue
		}
		if prev < 0 {
			first = i
		} else {
			fewest = min(fewest, int64(i-prev))
		}
		prev = i
	}
	if first >= 0 { // to the next cycle's first running day
		fewest = min(fewest, int64(first+gregorianCycle-prev))
	}
	return fewest
}

// secondsOfDay returns the times of day s runs at, in seconds after
// midnight, in order.
func secondsOfDay(s *cron.SpecSchedule) []int64 {
	var out []int64
	for h := range 24 {
		for m := range 60 {
			for sec := range 60 {
				if s.Hour&(1<<h) != 0 && s.Minute&(1<<m) != 0 && s.Second&(1<<sec) != 0 {
					out = append(out, int64(h*3600+m*60+sec))
				}
			}
		}
	}
	return out
}

// civilDay is a date of the calendar, with its weekday.
type civilDay struct {
	year    int
	month   time.Month
	day     int
	weekday time.Weekday
}

// next returns the following day.
func (d civilDay) next() civilDay {
	d.day++
	d.weekday = (d.weekday + 1) % 7
	if d.day > daysIn(d.year, d.month) {
		d.day, d.month = 1, d.month+1
		if d.month > time.December {
			d.month, d.year = time.January, d.year+1
		}
	}
	return d
}

// runs reports whether s runs on d, as cron decides: a day of the month
// and a day of the week both restricted (neither a *) match either.
func (d civilDay) runs(s *cron.SpecSchedule) bool {
	const star = 1 << 63
	if s.Month&(1<<d.month) == 0 {
		return false
	}
	dom, dow := s.Dom&(1<<d.day) != 0, s.Dow&(1<<d.weekday) != 0
	if s.Dom&star != 0 || s.Dow&star != 0 {
		return dom && dow
	}
	return dom || dow
}

// daysIn returns the number of days of month m of year y.
func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
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
	every := ShortestInterval(sched)
	if every >= MinInterval {
		return
	}
	if !s.AllowFrequentSchedule {
		v.errorf("schedule.cron", "runs every %s; the service recommends no more often than every %s: set allowFrequentSchedule: true to allow it", every, MinInterval)
		return
	}
	v.warnf("schedule.cron", "runs every %s, more often than the recommended %s (allowed by allowFrequentSchedule)", every, MinInterval)
}
