package reconcile

import "encoding/json"

// show is a value (a change, an entry) as a test's message shows it: its
// JSON (the plan's lines are the views' to write).
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
