package umapi

import (
	"reflect"
	"testing"
)

func TestStatsSince(t *testing.T) {
	t.Parallel()
	before := Stats{Requests: map[string]map[int]int{EndpointOrgUsers: {200: 3}, EndpointAction: {200: 1}}, TooManyRequests: 1, Retries: 2}
	after := Stats{Requests: map[string]map[int]int{EndpointOrgUsers: {200: 5, 429: 1}, EndpointAction: {200: 1}, EndpointToken: {200: 1}},
		TooManyRequests: 2, Retries: 3, PagesRepeated: 1}
	want := Stats{Requests: map[string]map[int]int{EndpointOrgUsers: {200: 2, 429: 1}, EndpointToken: {200: 1}},
		TooManyRequests: 1, Retries: 1, PagesRepeated: 1}
	if got := after.Since(before); !reflect.DeepEqual(got, want) {
		t.Errorf("Since = %+v, want %+v", got, want)
	}
	if got := after.Since(Stats{}); got.Total() != after.Total() {
		t.Errorf("Since(zero) total %d, want %d", got.Total(), after.Total())
	}
}
