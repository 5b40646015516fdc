package umapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/orgsync/orgsync/target/umwire"
)

// ProductsFrom reads one call's worth of products starting at entry start
// (deprecated endpoint 6).
func (c *Client) ProductsFrom(ctx context.Context, start int) ([]umwire.Product, error) {
	var out []umwire.Product
	_, err := c.getJSON(ctx, call{
		endpoint: EndpointProducts, class: limitApp, method: http.MethodGet,
		path: "/" + c.orgPath + "/products/", query: url.Values{"page": {strconv.Itoa(start)}},
	}, &out)
	return out, err
}

// Products reads every product of the organization (deprecated endpoint 6;
// the group and product profile listings replace it), asking again from
// the next entry until a call answers none: the specification gives no
// maximum per call.
func (c *Client) Products(ctx context.Context) ([]umwire.Product, error) {
	var all []umwire.Product
	seq := entryPages(c, func(start int) ([]umwire.Product, error) { return c.ProductsFrom(ctx, start) },
		func(p umwire.Product) string { return p.ID }, 0) // no documented maximum per call
	for batch, err := range seq {
		if err != nil {
			return nil, err
		}
		all = append(all, batch...)
	}
	return all, nil
}
