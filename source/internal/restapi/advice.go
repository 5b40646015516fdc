package restapi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// OAuthError returns the error code and description of a token
// endpoint's error answer in err ("invalid_client", "AADSTS7000215:
// ..."); "" when err is not one.
func OAuthError(err error) (code, desc string) {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode, re.ErrorDescription
	}
	return "", ""
}

// URLKey is a configuration key holding an endpoint's URL.
type URLKey struct{ Key, URL string }

// ReachAdvice says what to check when err is a ConnectError: the keys
// among keys whose URL is on the host that could not be reached; "" when
// err is not a ConnectError.
func ReachAdvice(err error, keys ...URLKey) string {
	var ce *ConnectError
	if !errors.As(err, &ce) {
		return ""
	}
	var named []string
	for _, k := range keys {
		if u, err := url.Parse(k.URL); err == nil && strings.EqualFold(u.Host, ce.Host) {
			named = append(named, fmt.Sprintf("%s (%s)", k.Key, k.URL))
		}
	}
	if len(named) == 0 {
		return "check the network and any proxy (HTTPS_PROXY)"
	}
	return "check " + strings.Join(named, " and ") + ", the network and any proxy (HTTPS_PROXY)"
}

// WithAdvice returns err followed by advice in parentheses, err when
// advice is "".
func WithAdvice(err error, advice string) error {
	if advice == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, advice)
}
