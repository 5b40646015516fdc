package planjson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// marshalEach writes items as a JSON list, each converted by form as it
// is written; nil is null.
func marshalEach[T, F any](items []T, form func(*T) F) ([]byte, error) {
	if items == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	b.WriteByte('[')
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		f := form(&items[i])
		if err := enc.Encode(&f); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// unmarshalEach reads the JSON list b into *out, each item converted by
// core as it is read; null is nil.
func unmarshalEach[F, T any](b []byte, out *[]T, core func(*F) T) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*out = nil
		return nil
	}
	if tok != json.Delim('[') {
		return errors.New("want a list")
	}
	list := []T{}
	for dec.More() {
		var f F
		if err := dec.Decode(&f); err != nil {
			return err
		}
		list = append(list, core(&f))
	}
	*out = list
	return nil
}
