#!/usr/bin/env bash
# Installs what `make test` needs and the machine lacks, from Debian's
# packages: OpenLDAP's slapd and ldap-utils (the LDAP tests), Samba's
# Active Directory domain controller and MIT Kerberos' kinit (the Active
# Directory and Kerberos tests), 389 Directory Server (the FreeIPA tests:
# the tests make their own instances with dscreate, none is started by the
# package), Chromium (the status page's browser test), promtool (the
# alert rules' tests; Debian ships it in prometheus), and Wine, msitools
# and mingw (the Windows release's tests). In CI (CI=true) a failure to install is fatal, because those
# integration tests must run there.
set -euo pipefail
need=()
command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || need+=(slapd)
command -v ldapsearch >/dev/null 2>&1 || need+=(ldap-utils)
command -v samba >/dev/null 2>&1 || [ -x /usr/sbin/samba ] || need+=(samba)
[ -d /usr/share/samba/setup/ad-schema ] || need+=(samba-ad-dc samba-ad-provision)
command -v kinit >/dev/null 2>&1 || need+=(krb5-user)
command -v dscreate >/dev/null 2>&1 || [ -x /usr/sbin/dscreate ] || need+=(389-ds-base)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
# Shell completion (zsh, fish), the packages of make dist (lintian, rpm,
# systemd-analyze) and the CI recipes (shellcheck; rsync, node and npm for
# gitlab-ci-local, installed from npm below).
for tool in zsh fish lintian rpm shellcheck rsync npm; do command -v "$tool" >/dev/null 2>&1 || need+=("$tool"); done
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
# The Windows release: the MSI (msitools' wixl, msibuild and msiinfo), orgsync.exe
# and the MSI tried under Wine 8 (wine, wine64), and mingw, which builds
# the test's bcryptprimitives.dll shim into the test's own Wine prefix
# (Wine 8 lacks ProcessPrng, which Go programs need); unzip lists the zips.
command -v wixl >/dev/null 2>&1 || need+=(wixl)
command -v msiinfo >/dev/null 2>&1 || need+=(msitools)
command -v wine >/dev/null 2>&1 || need+=(wine wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
gitlab_ci_local=gitlab-ci-local@4.56.0 # runs on Debian 12's Node.js (later releases need Node.js 22)
install_npm() {
  command -v gitlab-ci-local >/dev/null 2>&1 && return 0
  $sudo npm install --global --no-audit --no-fund "$gitlab_ci_local" >/dev/null && return 0
  echo "test-deps: could not install $gitlab_ci_local" >&2
  [ "${CI:-}" != "true" ]
}
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#need[@]} -eq 0 ]; then install_npm; exit $?; fi
echo "test-deps: installing ${need[*]}"
apt="apt-get -o DPkg::Lock::Timeout=600"
if ! { $sudo $apt update -qq && DEBIAN_FRONTEND=noninteractive $sudo $apt install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
  echo "test-deps: could not install ${need[*]}" >&2
  [ "${CI:-}" = "true" ] && exit 1
fi
install_npm || exit 1
# Debian's packages may start system daemons: slapd on port 389, Samba's
# smbd, nmbd and domain controller. The tests start their own (slapd and
# 389 Directory Server on free loopback ports, Samba's domain controllers
# each in a network namespace of its own) and need none of them, so the
# installation's daemons are stopped (by their services and pid files,
# never the test servers of a run in progress).
if command -v systemctl >/dev/null 2>&1; then
  for unit in slapd samba-ad-dc smbd nmbd winbind prometheus; do $sudo systemctl stop "$unit" >/dev/null 2>&1 || true; done
fi
for pidfile in /var/run/slapd/slapd.pid /run/samba/samba.pid; do
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in
  */slapd | */samba) $sudo kill "$pid" >/dev/null 2>&1 || true ;;
  esac
done
exit 0
