package googlefake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// AWSKey is an AWS access key that the fake's AWS providers check
// signatures with: its secret, and the ARN of the role session it
// belongs to (what AWS STS GetCallerIdentity would answer: the subject).
type AWSKey struct{ Secret, ARN string }

// The subject token type of an AWS workload: a signed GetCallerIdentity
// request.
const awsTokenType = "urn:ietf:params:aws:token-type:aws4_request"

// awsRequest is an AWS workload's subject token: a request to AWS STS
// GetCallerIdentity signed with AWS Signature Version 4, which Google's
// Security Token Service would send to AWS.
type awsRequest struct {
	URL     string `json:"url"`
	Method  string `json:"method"`
	Headers []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"headers"`
}

// checkAWS verifies an AWS subject token for the provider audience: a
// POST to the regional STS endpoint's GetCallerIdentity, bound to the
// provider (x-goog-cloud-target-resource), dated within 15 minutes and
// signed (Signature Version 4) by a key the domain knows. It returns the
// caller's ARN.
func (s *Server) checkAWS(token, audience string) (string, error) {
	raw, err := url.QueryUnescape(token)
	var r awsRequest
	if err != nil || json.Unmarshal([]byte(raw), &r) != nil {
		return "", errors.New("the AWS subject token is not a serialized signed request")
	}
	u, err := url.Parse(r.URL)
	h := http.Header{}
	for _, kv := range r.Headers {
		h.Add(kv.Key, kv.Value)
	}
	switch {
	case err != nil || r.Method != http.MethodPost || u.Query().Get("Action") != "GetCallerIdentity" || !strings.HasSuffix(u.Host, ".amazonaws.com"):
		return "", errors.New("the AWS subject token is not a GetCallerIdentity request to AWS STS")
	case strings.TrimPrefix(h.Get("x-goog-cloud-target-resource"), "https:") != audience:
		return "", errors.New("the AWS subject token is not bound to this provider (x-goog-cloud-target-resource)")
	}
	date, err := time.Parse("20060102T150405Z", h.Get("x-amz-date"))
	if err != nil || time.Since(date).Abs() > 15*time.Minute {
		return "", errors.New("the AWS signature is expired or not dated")
	}
	return s.checkSignature(r.Method, u, h)
}

// checkSignature recomputes the request's Signature Version 4 with the
// secret of its access key and compares it with the one it carries.
func (s *Server) checkSignature(method string, u *url.URL, h http.Header) (string, error) {
	alg, rest, _ := strings.Cut(h.Get("Authorization"), " ")
	parts := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		parts[k] = v
	}
	scope := strings.Split(parts["Credential"], "/") // key id, date, region, service, aws4_request
	if alg != "AWS4-HMAC-SHA256" || len(scope) != 5 || scope[4] != "aws4_request" {
		return "", errors.New("the AWS subject token's Authorization is not Signature Version 4")
	}
	key, ok := s.dom.AWSKeys[scope[0]]
	if !ok {
		return "", fmt.Errorf("the AWS access key %s is not known", scope[0])
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	var canon strings.Builder
	for _, name := range signed {
		canon.WriteString(name + ":" + strings.Join(h.Values(name), ",") + "\n")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	empty := sha256.Sum256(nil)
	request := strings.Join([]string{method, path, u.Query().Encode(), canon.String(), strings.Join(signed, ";"), hex.EncodeToString(empty[:])}, "\n")
	sum := sha256.Sum256([]byte(request))
	toSign := strings.Join([]string{alg, h.Get("x-amz-date"), strings.Join(scope[1:], "/"), hex.EncodeToString(sum[:])}, "\n")
	k := []byte("AWS4" + key.Secret)
	for _, part := range append(slices.Clone(scope[1:4]), "aws4_request", toSign) {
		m := hmac.New(sha256.New, k)
		m.Write([]byte(part))
		k = m.Sum(nil)
	}
	if !hmac.Equal([]byte(hex.EncodeToString(k)), []byte(parts["Signature"])) {
		return "", errors.New("the AWS signature does not match")
	}
	return key.ARN, nil
}
