package googlefake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// call sends a request to the fake and returns the status and body.
func call(t *testing.T, method, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestKeylessRefusals: the metadata server, IAM Credentials and the
// directory refuse as Google does what the source never sends.
func TestKeylessRefusals(t *testing.T) {
	t.Parallel()
	k, _ := NewKey("orgsync@orgsync-fake.iam.gserviceaccount.com", "108000000000000000001")
	dom := Demo(k.Account)
	dom.AdminAccounts = []string{k.Account.Email}
	dom.AllowTokenCreator(k.Account.Email, "serviceAccount:"+k.Account.Email)
	s := Start(dom, Options{MetadataAccount: k.Account.Email})
	t.Cleanup(s.Close)
	flavor := map[string]string{"Metadata-Flavor": "Google"}
	if st, _ := call(t, "GET", s.URL+MetadataPath+"token", "", nil); st != 403 {
		t.Errorf("metadata without Metadata-Flavor: %d, want 403", st)
	}
	if st, _ := call(t, "GET", s.URL+MetadataPath+"token", "", map[string]string{"Metadata-Flavor": "Google", "X-Forwarded-For": "10.0.0.1"}); st != 403 {
		t.Errorf("metadata through a proxy: %d, want 403", st)
	}
	if st, body := call(t, "GET", s.URL+MetadataPath+"email", "", flavor); st != 200 || body != k.Account.Email {
		t.Errorf("metadata email: %d %q", st, body)
	}
	token := func(scopes string) string {
		_, body := call(t, "GET", s.URL+MetadataPath+"token?scopes="+scopes, "", flavor)
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		_ = json.Unmarshal([]byte(body), &tok)
		return tok.AccessToken
	}
	cloud, directory := token(CloudPlatformScope), token(strings.Join(ReadOnlyScopes, ","))
	sign := s.URL + iamPrefix + k.Account.Email + ":signJwt"
	for name, c := range map[string]struct {
		token, payload string
		status         int
		want           string
	}{
		"exp past 12 hours":     {cloud, `{"exp": ` + jsonTime(time.Now().Add(13*time.Hour)) + `}`, 400, "12 hours"},
		"not cloud-platform":    {directory, `{}`, 403, "ACCESS_TOKEN_SCOPE_INSUFFICIENT"},
		"a good payload":        {cloud, `{"sub":"alice@example.com"}`, 200, "signedJwt"},
		"no token":              {"", `{}`, 401, "UNAUTHENTICATED"},
		"payload not an object": {cloud, `[1]`, 400, "not a JSON object"},
	} {
		body, _ := json.Marshal(map[string]string{"payload": c.payload})
		st, got := call(t, "POST", sign, string(body), map[string]string{"Authorization": "Bearer " + c.token})
		if st != c.status || !strings.Contains(got, c.want) {
			t.Errorf("%s: %d %s, want %d %q", name, st, got, c.status, c.want)
		}
	}
	// An admin-role account reads as itself: by the customer's ID, not my_customer.
	bearer := map[string]string{"Authorization": "Bearer " + directory}
	if st, _ := call(t, "GET", s.URL+apiPrefix+"users?customer=my_customer", "", bearer); st != 400 {
		t.Errorf("admin-role account with my_customer: %d, want 400", st)
	}
	if st, _ := call(t, "GET", s.URL+apiPrefix+"users?customer="+DemoCustomer, "", bearer); st != 200 {
		t.Errorf("admin-role account with the customer ID: %d, want 200", st)
	}
}

func jsonTime(t time.Time) string { b, _ := json.Marshal(t.Unix()); return string(b) }

// TestConcurrentQuota: more requests in flight than the quota allows are
// answered 403 quotaExceeded.
func TestConcurrentQuota(t *testing.T) {
	t.Parallel()
	k, _ := NewKey("orgsync@orgsync-fake.iam.gserviceaccount.com", "108000000000000000001")
	dom := Generate(k.Account, 20000, 3, 1)
	dom.AdminAccounts = []string{k.Account.Email}
	s := Start(dom, Options{MetadataAccount: k.Account.Email, Quota: Quota{Concurrent: 1}})
	t.Cleanup(s.Close)
	_, body := call(t, "GET", s.URL+MetadataPath+"token?scopes="+strings.Join(ReadOnlyScopes, ","), "", map[string]string{"Metadata-Flavor": "Google"})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal([]byte(body), &tok)
	var wg sync.WaitGroup
	var mu sync.Mutex
	reasons := map[int]int{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _ := call(t, "GET", s.URL+apiPrefix+"users?maxResults=500&customer="+DemoCustomer, "", map[string]string{"Authorization": "Bearer " + tok.AccessToken})
			mu.Lock()
			reasons[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if reasons[403] == 0 || reasons[200] == 0 {
		t.Errorf("answers %v: want some 200 and some 403 quotaExceeded", reasons)
	}
}
