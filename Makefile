# orgsync: see README.md. `make test` runs every test (it installs what the
# tests need first); `make demo` runs the main job on the embedded simulator,
# `make demo-ldap` the same from a throwaway OpenLDAP server, `make demo-ad`
# from a throwaway Samba Active Directory domain, `make demo-freeipa` from a
# throwaway 389 Directory Server with FreeIPA's tree.
GO      ?= go
BIN     ?= bin/orgsync
PKGS    ?= ./...
# Executions per fuzz target: a count, not a duration (see scripts/fuzz.sh).
FUZZTIME ?= 100000x

.PHONY: all build test demo demo-review demo-ldap demo-ad demo-freeipa lint bench bench-ad fuzz test-deps

all: build

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)" -o $(BIN) ./cmd/orgsync

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Everything the tests need (OpenLDAP's slapd and ldap-utils, Samba's
# domain controller, krb5-user, 389 Directory Server) is installed
# by scripts/test-deps.sh when missing and the machine allows it.
test-deps:
	bash scripts/test-deps.sh

# Packages are tested one at a time (-p 1): the client's pacing tests measure
# wall-clock time against the rate limits and must not share the cores.
# Every fuzz target's seed corpus (including each crasher found so far,
# added as a seed) runs here as ordinary tests; exploring new inputs is
# `make fuzz`, which is not deterministic and so is kept out of CI.
test: test-deps lint build
	$(GO) test -count=1 -p 1 -timeout 45m $(PKGS)

fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(PKGS)

# A 10,000-user Active Directory read (Samba, LDAPS) against ldapsearch over
# the same connection (docs/performance.md); it provisions the domain the
# first time (minutes) and needs root. Not part of make test or make bench.
bench-ad:
	ORGSYNC_AD_BENCH=1 $(GO) test -run '^$$' -bench ReadAD10k -benchtime 5x -timeout 60m ./source/ldap/

demo:
	$(GO) run ./cmd/orgsync demo

# Change control: plan --out, show, apply with the removals held for
# approval, approve, history; the report and the status page (served on
# loopback for SERVE) are kept in a temporary directory it names.
SERVE ?= 0s
demo-review:
	$(GO) run ./cmd/orgsync demo --review --serve $(SERVE)

# The OpenLDAP example: a throwaway slapd serving examples/openldap/users.ldif
# (it needs OpenLDAP's slapd: make test-deps installs it), synced into the
# simulator.
demo-ldap:
	$(GO) run ./cmd/orgsync demo --source ldap

# The Active Directory example: a throwaway Samba domain controller for
# CORP.EXAMPLE.COM in a network namespace of its own serving
# examples/activedirectory/demo/directory.ldif, read with a Kerberos bind
# and synced into the simulator. Samba needs root (and make test-deps).
demo-ad:
	$(GO) run ./cmd/orgsync demo --source activedirectory

# The FreeIPA example: a throwaway 389 Directory Server holding FreeIPA's
# tree, examples/freeipa/demo/directory.ldif, read over LDAPS as a system
# account and synced into the simulator (make test-deps installs 389-ds-base).
demo-freeipa:
	$(GO) run ./cmd/orgsync demo --source freeipa
