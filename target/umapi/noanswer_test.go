package umapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestSentWithoutAnswerIsTold: a request that changes something, sent
// whole to a real server over loopback, whose answer never says what the
// service did (the connection closed after the body was read, the run
// stopped while it waited, the answer cut off) fails with a
// *NoAnswerError (IsAmbiguous): the service may have applied it. One
// that never left (nothing listens, the run stopped before it) or that
// got an answer (a 400) is not.
func TestSentWithoutAnswerIsTold(t *testing.T) {
	t.Parallel()
	create := []umwire.Entry{{User: "n@example.com", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{Email: "n@example.com", FirstName: "N", LastName: "N"}}}}}
	add := []umwire.Entry{{User: "a@example.com", Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"G"}}}}}}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	handlers := map[string]http.HandlerFunc{
		"closed after the body": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			_ = conn.Close()
		},
		"held until the run stops": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		},
		"answer cut off": func(w http.ResponseWriter, r *http.Request) {
			cutAfterHeaders(w, []byte(`{"completed":1,"notCompleted":0,"completedInTestMode":0,"result":"success"}`))
		},
		"answered 400": func(w http.ResponseWriter, r *http.Request) {
			writeJSONBody(w, http.StatusBadRequest, umwire.ErrorBody{Result: umwire.ErrCommandMalformed, Message: "no"})
		},
	}
	for name, h := range handlers {
		for what, entries := range map[string][]umwire.Entry{"not idempotent": create, "idempotent": add} {
			t.Run(name+", "+what, func(t *testing.T) {
				t.Parallel()
				f := newFake(t, h)
				c := f.client(t, func(c *Config) { c.MaxRetries = 1 })
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				_, err := c.Action(ctx, entries, ActionOptions{})
				if want := name != "answered 400"; err == nil || IsAmbiguous(err) != want || f.count() == 0 {
					t.Errorf("%v after %d requests: ambiguous %v, want %v", err, f.count(), IsAmbiguous(err), want)
				}
			})
		}
	}
	t.Run("never sent", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		f := newFake(t, func(http.ResponseWriter, *http.Request) {})
		c := f.client(t, func(c *Config) { c.BaseURL = "http://" + addr })
		if _, err := c.Action(context.Background(), create, ActionOptions{}); err == nil || IsAmbiguous(err) {
			t.Errorf("a request to an address nothing listens on: %v, ambiguous %v", err, IsAmbiguous(err))
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := f.client(t).Action(ctx, create, ActionOptions{}); err == nil || IsAmbiguous(err) || f.count() != 0 {
			t.Errorf("a request of a run stopped before it: %v, ambiguous %v, %d sent", err, IsAmbiguous(err), f.count())
		}
	})
}
