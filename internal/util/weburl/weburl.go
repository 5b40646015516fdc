// Package weburl checks the address of a web service: an http or https URL
// with a host. The configuration, the service client and the directory
// sources all take such addresses and check them here, with one message.
package weburl

import (
	"fmt"
	"net/url"
)

// Parse returns s parsed, or an error saying that s is not an http or https
// URL with a host.
func Parse(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", s)
	}
	return u, nil
}
