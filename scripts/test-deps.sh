#!/usr/bin/env bash
# Installs what `make test` needs and the machine lacks: OpenLDAP's slapd and
# ldap-utils, and Chromium (the status page's browser test), from Debian's
# packages. In CI (CI=true) a failure to install is fatal, because the LDAP
# and browser tests must run there.
set -euo pipefail
need=()
command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || need+=(slapd)
command -v ldapsearch >/dev/null 2>&1 || need+=(ldap-utils)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
[ ${#need[@]} -eq 0 ] && exit 0
echo "test-deps: installing ${need[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
apt="apt-get -o DPkg::Lock::Timeout=600"
if ! { $sudo $apt update -qq && DEBIAN_FRONTEND=noninteractive $sudo $apt install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
  echo "test-deps: could not install ${need[*]}" >&2
  [ "${CI:-}" = "true" ] && exit 1
fi
# Debian's package may start a system slapd on port 389; the tests start
# their own on free ports. Stop only that system daemon (by its pid file),
# never the test servers of a run in progress.
if command -v systemctl >/dev/null 2>&1; then $sudo systemctl stop slapd >/dev/null 2>&1 || true; fi
if [ -f /var/run/slapd/slapd.pid ]; then $sudo kill "$(cat /var/run/slapd/slapd.pid)" >/dev/null 2>&1 || true; fi
exit 0
