package umsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// FuzzDecodeActions feeds arbitrary bodies to the action decoder and then
// to the action endpoint: the decoder either refuses the whole body or
// yields 1-10 entries, and the endpoint answers 200 or 400 with a JSON
// body, never a panic or a 500.
func FuzzDecodeActions(f *testing.F) {
	for _, seed := range []string{
		`[{"user":"alice@example.com","do":[{"add":{"group":["Writers"]}},{"remove":"all"}]}]`,
		`[{"user":"n@example.com","requestID":"r","do":[{"createEnterpriseID":{"email":"n@example.com","firstname":"N","lastname":"U","country":"US","option":"updateIfAlreadyExists"}},{"update":{"email":"m@example.org","username":"m"}},{"removeFromOrg":{"deleteAccount":true}}]}]`,
		`[{"usergroup":"G","do":[{"createUserGroup":{"name":"G","description":"d"}},{"add":{"user":["bob@example.com"],"productConfiguration":["Docs Default"]}},{"deleteUserGroup":{}}]}]`,
		`[{"user":"dave","domain":"example.org","useVendorID":false,"do":[{"addVendorID":{"email":"x@y.z"}}]}]`,
		`[1,"x",null,{},{"do":null}]`, `{}`, `[]`, `[{"user":"a@b.c","do":[{"remove":"ALL"}]}]`,
	} {
		f.Add([]byte(seed))
	}
	st, err := LoadState("testdata/org.yaml")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(st, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		entries, err := decodeActions(body)
		if err != nil && !errors.Is(err, errMalformedBody) {
			t.Fatalf("whole-body error %v does not wrap errMalformedBody", err)
		}
		if err == nil && (len(entries) == 0 || len(entries) > umwire.MaxEntriesPerRequest) {
			t.Fatalf("%d entries accepted", len(entries))
		}
		rec := httptest.NewRecorder()
		srv.serveAPI(rec, httptest.NewRequest("POST", umwire.BasePath+"/action/"+testOrg, bytes.NewReader(body)))
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON answer %q", rec.Body)
		}
		if (err == nil) != (rec.Code == http.StatusOK) {
			t.Fatalf("decoder and endpoint disagree: %v / %d", err, rec.Code)
		}
	})
}
