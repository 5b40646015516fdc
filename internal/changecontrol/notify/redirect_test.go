package notify

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
	"github.com/orgsync/orgsync/secret"
)

// TestWebhookRedirectsCarryNothing: a webhook that redirects to another
// host (any status; 307 and 308 would post the message again there) is
// refused: neither the message nor the webhook's URL, whose path is its
// secret, reaches the other host, and the error names the origins only.
func TestWebhookRedirectsCarryNothing(t *testing.T) {
	t.Parallel()
	for _, status := range outboundtest.RedirectStatuses {
		other := outboundtest.NewCatcher(t)
		front := outboundtest.Front(t, other.URL, other.URL, status, func(*http.Request) bool { return true })
		file := filepath.Join(t.TempDir(), "url")
		if err := os.WriteFile(file, []byte(front.URL+"/hooks/SECRET-WEBHOOK-TOKEN"), 0o600); err != nil {
			t.Fatal(err)
		}
		w := &Webhook{URL: secret.Ref{File: file}, Format: FormatSlack, Client: outbound.New(outbound.Options{})}
		err := w.Send(context.Background(), heldEvent())
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("answered %d with a redirect to %s", status, other.URL)) ||
			strings.Contains(err.Error(), "SECRET-WEBHOOK-TOKEN") {
			t.Errorf("%d: %v, want the redirect refused without the URL's path", status, err)
		}
		other.Check(t, fmt.Sprint(status), "SECRET-WEBHOOK-TOKEN", "held for approval", "0123abcd")
	}
}
