package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The versions of the formats of the state directory's files, written in
// each file (each line of runs.jsonl and history.jsonl, the first line of
// an apply's journal) as formatVersion. A file written before formats had
// versions has none: it reads as version 0, which is version 1 without
// the field. A field added that an earlier release can pass over keeps
// the version; one whose meaning changes, or that goes, takes a new one,
// and this package goes on reading every earlier version (its golden
// files, testdata/formats, are read by its tests). A later version than
// these is refused (an approval, a journal) or passed over (a line).
const (
	ApprovalFormat = 1 // an approval's file (approvals/ID.json)
	RunsFormat     = 1 // a line of runs.jsonl (Run)
	HistoryFormat  = 1 // a line of history.jsonl (Entry)
	JournalFormat  = 1 // an apply's journal (approvals/ID.journal.jsonl)
)

// ErrLaterFormat is the error of reading a file a later orgsync wrote in
// a format this one does not know.
var ErrLaterFormat = errors.New("written by a later orgsync in a format this one does not read")

// readable reports whether this orgsync reads version v of a format whose
// latest is current.
func readable(v, current int) error {
	if v < 0 || v > current {
		return fmt.Errorf("format %d, %w (it reads formats 0 to %d): use that release, or a later one", v, ErrLaterFormat, current)
	}
	return nil
}

// approvalFile is an approval as its file holds it: the approval (its
// changes in planjson's form) and the format's version.
type approvalFile struct {
	FormatVersion int `json:"formatVersion"`
	*Approval
}

// runLine is a line of runs.jsonl: a run record and the format's version.
type runLine struct {
	FormatVersion int `json:"formatVersion"`
	*Run
}

// entryLine is a line of history.jsonl: an entry and the format's
// version.
type entryLine struct {
	FormatVersion int `json:"formatVersion"`
	*Entry
}

// WriteEntries writes entries to w as history.jsonl holds them, one JSON
// object a line (orgsync history --output json).
func WriteEntries(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	for i := range entries {
		if err := enc.Encode(entryLine{HistoryFormat, &entries[i]}); err != nil {
			return err
		}
	}
	return nil
}
