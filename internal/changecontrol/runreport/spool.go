package runreport

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/orgsync/orgsync/internal/store"
)

// spool keeps the changes of a report in a temporary file, one JSON line
// each, until the report is written.
type spool struct {
	f *os.File
	n int
}

// add appends entries, making the file in dir at the first.
func (s *spool) add(dir string, entries []store.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp(dir, ".orgsync-report-*.jsonl") // readable by its owner only
		if err != nil {
			return err
		}
		s.f = f
	}
	w := bufio.NewWriterSize(s.f, 1<<16)
	enc := json.NewEncoder(w)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
		s.n++
	}
	return w.Flush()
}

// each calls fn with each change, in the order added.
func (s *spool) each(fn func(e *store.Entry) error) error {
	if s.f == nil {
		return nil
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	defer s.f.Seek(0, io.SeekEnd) // more may be added
	dec := json.NewDecoder(bufio.NewReaderSize(s.f, 1<<16))
	for range s.n {
		var e store.Entry
		if err := dec.Decode(&e); err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// close removes the file.
func (s *spool) close() error {
	if s.f == nil {
		return nil
	}
	err := errors.Join(s.f.Close(), os.Remove(s.f.Name()))
	*s = spool{}
	return err
}
