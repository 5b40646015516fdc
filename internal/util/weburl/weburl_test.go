package weburl

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	for s, ok := range map[string]bool{
		"https://um.example.com": true, "http://127.0.0.1:8080/base": true, "HTTPS://example.com": true,
		"": false, "um.example.com": false, "ftp://example.com": false, "https://": false, "https//example.com": false,
		"http://%zz": false, "/v2/usermanagement": false,
	} {
		u, err := Parse(s)
		if (err == nil) != ok || ok && u.Host == "" {
			t.Errorf("Parse(%q) = %v, %v; want ok %v", s, u, err, ok)
		}
	}
}
