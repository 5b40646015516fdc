package main

import (
	"context"
	"flag"
	"time"

	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/target/umsim"
)

// addSimFlags defines the simulator's options o as flags on fs.
func addSimFlags(fs *flag.FlagSet, o *umsim.Options) {
	fs.IntVar(&o.PageSize, "page-size", 0, "users per listing page (default 2000)")
	fs.IntVar(&o.InvitePageSize, "invite-page-size", 0, "invites per call (default 200)")
	fs.DurationVar(&o.InviteExpiry, "invite-expiry", 0, "invite expiry (default 720h)")
	fs.BoolVar(&o.ResendExpired, "resend-expired", false, "resend and revoke also act on expired invites (default: they answer 404, no pending invite)")
	fs.DurationVar(&o.TokenLifetime, "token-lifetime", 0, "access token lifetime (default 24h)")
	fs.IntVar(&o.Limits.Read, "read-limit", 25, "requests to endpoints 1-3 per access token per window (0: no limit)")
	fs.IntVar(&o.Limits.App, "app-limit", 100, "requests per API key per window (0: no limit)")
	fs.DurationVar(&o.Limits.Window, "window", time.Minute, "rate-limit window")
	fs.Int64Var(&o.Faults.Seed, "seed", 1, "seed of the injected faults")
	fs.Float64Var(&o.Faults.ErrorRate, "error-rate", 0, "fraction of requests answered 500/503")
	fs.Float64Var(&o.Faults.AmbiguousRate, "ambiguous-rate", 0, "fraction of action requests applied but answered 500 or dropped")
	fs.Float64Var(&o.Faults.DropRate, "drop-rate", 0, "fraction of requests whose connection is dropped")
	fs.DurationVar(&o.Faults.Latency, "latency", 0, "latency added to every request")
	fs.Float64Var(&o.Faults.HangRate, "hang-rate", 0, "fraction of requests accepted and never answered")
	fs.BoolVar(&o.Faults.HangAll, "hang", false, "accept every request, the token endpoints' too, and never answer")
	fs.Float64Var(&o.Faults.CutRate, "cut-rate", 0, "fraction of requests served whose answer is cut in the middle of its body")
}

// runSim serves the simulator until SIGTERM or SIGINT, then saves the state
// when asked.
func runSim(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync sim", flag.ContinueOnError)
	h := simserver.Host{}
	addSimFlags(fs, &h.Options)
	lf := addLogFlags(fs)
	fs.StringVar(&h.Listen, "listen", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&h.State, "state", "", "state file (YAML or JSON) of one organization (org:) or several (orgs:), required")
	fs.BoolVar(&h.Save, "save", false, "save the state back to --state on shutdown")
	fs.StringVar(&h.TLSCert, "tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key), for clients that insist on https")
	fs.StringVar(&h.TLSKey, "tls-key", "", "the PEM private key of --tls-cert")
	if code, ok := parseFlags(fs, args, std, 0); !ok {
		return code
	}
	log, err := lf.logger(std.err, nil)
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	h.Log = log
	if err := h.Run(ctx); err != nil {
		return fail(std, fs.Name(), err)
	}
	return exitOK
}
