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
# How many of a package's tests run at once: they wait on servers and
# processes more than they compute, so more than go test's default (the
# number of cores); docs/performance.md has the figure.
TESTPARALLEL ?= 8
test: export GOFLAGS += -parallel=$(TESTPARALLEL)

.PHONY: all build dist test demo demo-review demo-ldap demo-ad demo-freeipa lint bench bench-ad bench-compare fuzz test-deps

all: build

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)

LDFLAGS = -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/orgsync

# Release files in $(DIST): for each of $(ARCHES), the static Linux
# binary, its .deb and .rpm (binary, systemd units, the orgsync user,
# /etc/orgsync with a starter configuration, /var/lib/orgsync; see
# docs/deployment.md), the macOS binary in a .tar.gz and orgsync.exe in a
# .zip; the Windows MSI (amd64, made with msitools' wixl); and SHA256SUMS.
# The packages are made by tools/dist (nfpm), a program of the tools
# module (tools/go.mod), which neither the orgsync binary nor its module
# requires.
DIST   ?= dist
ARCHES ?= amd64 arm64
dist:
	rm -rf $(DIST) && mkdir -p $(DIST)
	for arch in $(ARCHES); do for os in linux darwin windows; do \
	  ext=; [ $$os = windows ] && ext=.exe; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=auto -ldflags "-s -w $(LDFLAGS)" \
	    -o $(DIST)/orgsync-$(VERSION)-$$os-$$arch$$ext ./cmd/orgsync || exit 1; \
	done; done
	$(GO) -C tools run ./dist --version $(VERSION) --dir $(abspath $(DIST)) --examples $(abspath examples) $(ARCHES)

# The binary builds for every platform orgsync ships for, and the packages with Windows
# code are vetted for both Windows architectures (the command's without
# its tests, which run on Linux), so CI fails the day one breaks.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
WINDOWS_PKGS ?= ./internal/winsvc ./secret ./internal/util/logs ./internal/demo/starter
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) -C tools vet ./...
	for p in $(PLATFORMS); do echo "build $$p"; CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./cmd/orgsync || exit 1; done
	for a in amd64 arm64; do \
	  GOOS=windows GOARCH=$$a $(GO) vet $(WINDOWS_PKGS) || exit 1; \
	  GOOS=windows GOARCH=$$a $(GO) vet $$(GOOS=windows $(GO) list -f '{{range .GoFiles}}{{$$.Dir}}/{{.}} {{end}}' ./cmd/orgsync) || exit 1; \
	done

# Everything the tests need (OpenLDAP's slapd and ldap-utils, Samba's
# domain controller, krb5-user, 389 Directory Server) is installed
# by scripts/test-deps.sh when missing and the machine allows it.
test-deps:
	bash scripts/test-deps.sh

# Packages are tested in parallel: every throwaway directory server binds its
# own loopback ports (Samba its own network namespace), so no two tests
# share an address.
# Every fuzz target's seed corpus (including each crasher found so far,
# added as a seed) runs here as ordinary tests; exploring new inputs is
# `make fuzz`, which is not deterministic and so is kept out of CI.
#
# Two modules are tested: orgsync's own, and the tools module (tools/go.mod:
# the release packager, and the tests that need Helm, Kubernetes' API
# types, actionlint or chromedp, which orgsync's module does not require).
# They run side by side (the tools module's longest package, tools/dist,
# builds the release and runs it under Wine); TOOLS_PKGS picks some of the
# tools module's packages.
TOOLS_PKGS ?= ./...
test: test-deps lint build
	$(GO) -C tools test -count=1 -timeout 45m $(TOOLS_PKGS) & tools=$$!; \
	$(GO) test -count=1 -timeout 45m $(PKGS); own=$$?; \
	wait $$tools; status=$$?; \
	[ $$own -eq 0 ] || { echo "make test: orgsync's module failed"; exit 1; }; \
	[ $$status -eq 0 ] || { echo "make test: the tools module (tools/) failed"; exit 1; }

fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(PKGS)

# The main benchmarks of commit REF and of the working tree, run
# interleaved COUNT times each on this machine and compared with benchstat
# (docs/performance.md says when and how); BENCH picks some of them.
bench-compare:
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<commit> [COUNT=6] [BENCH='csv expr merge plan listing google']"; exit 2; }
	GO=$(GO) COUNT=$(or $(COUNT),6) BENCH="$(BENCH)" bash scripts/bench-compare.sh $(REF)

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
