package okta

import "time"

// SetWaits shortens the waits between retries that the server does not
// set, for tests.
func (s *Source) SetWaits(minWait, maxWait time.Duration) {
	s.Retry.MinWait, s.Retry.MaxWait = minWait, maxWait
}
