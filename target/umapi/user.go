package umapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/orgsync/orgsync/target/umwire"
)

// GetUser reads one active user (endpoint 3). email is case-insensitive;
// domain (recommended) is "VendorID" for independent IDs, else a domain of
// the user's directory, and may be empty. A user that does not exist is an
// *APIError with status 404 (see IsNotFound).
func (c *Client) GetUser(ctx context.Context, email, domain string) (*umwire.User, error) {
	q := url.Values{}
	if domain != "" {
		q.Set("domain", domain)
	}
	cl := call{
		endpoint: EndpointUser, class: limitRead, method: http.MethodGet,
		path: "/organizations/" + c.orgPath + "/users/" + url.PathEscape(email), query: q,
	}
	var body umwire.UserInfo
	resp, err := c.getJSON(ctx, cl, &body)
	if err != nil {
		return nil, err
	}
	if err := resultError(cl.endpoint, resp, body.Result, body.Message); err != nil {
		return nil, err
	}
	if body.User == nil {
		return nil, &APIError{Endpoint: cl.endpoint, StatusCode: resp.StatusCode, Code: body.Result,
			Message: "the answer holds no user", RequestID: requestIDOf(resp)}
	}
	return body.User, nil
}
