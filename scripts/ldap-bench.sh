#!/usr/bin/env bash
# Compares orgsync's LDAP source with OpenLDAP's ldapsearch on the same
# server: starts a throw-away slapd with N generated users (default
# 100,000), reads them all with `ldapsearch -E pr=1000/noprompt` and with
# the Go benchmark BenchmarkRead100k (same filter, page size and
# attributes), and prints both times and the ratio (ldapsearch time / Go
# time; at least 0.8 is the goal). The two are run alternately, best of
# each kept. Usage: scripts/ldap-bench.sh [N] [runs]
set -euo pipefail
n=${1:-100000}
runs=${2:-5}
cd "$(dirname "$0")/.."
for bin in /usr/sbin/slapd /usr/sbin/slapadd /usr/bin/ldapsearch; do
  [ -x "$bin" ] || { echo "ldap-bench: $bin missing: run scripts/test-deps.sh" >&2; exit 1; }
done
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

suffix="dc=example,dc=com"
base="ou=people,$suffix"
reader="cn=reader,$suffix"
(umask 077; printf "reader-secret" > "$dir/pw")
filter='(objectClass=inetOrgPerson)'
attrs=(mail givenName sn c)

mkdir "$dir/db"
cat > "$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
sizelimit size.soft=500 size.hard=500 size.prtotal=unlimited
database mdb
maxsize 4294967296
suffix "$suffix"
rootdn "cn=admin,$suffix"
rootpw admin-secret
directory $dir/db
index objectClass eq
access to attrs=userPassword by anonymous auth by * none
access to * by * read
CONF

echo "ldap-bench: generating and loading $n users"
awk -v n="$n" -v suffix="$suffix" -v base="$base" -v reader="$reader" 'BEGIN {
  printf "dn: %s\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n", suffix
  printf "dn: %s\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: reader-secret\n\n", reader
  printf "dn: %s\nobjectClass: organizationalUnit\nou: people\n\n", base
  for (i = 1; i <= n; i++)
    printf "dn: uid=u%06d,%s\nobjectClass: inetOrgPerson\nuid: u%06d\ncn: User %d\ngivenName: Given%d\nsn: Family%d\nmail: u%06d@example.com\ntitle: Engineer\n\n", i, base, i, i, i, i, i
}' > "$dir/users.ldif"
# A private copy of slapd: Ubuntu's AppArmor profile for /usr/sbin/slapd
# forbids reading the temporary directory. Called as slapadd, it loads.
cp /usr/sbin/slapd "$dir/slapd"
ln -s slapd "$dir/slapadd"
"$dir/slapadd" -q -f "$dir/slapd.conf" -l "$dir/users.ldif"

port=$(( 20000 + RANDOM % 20000 ))
url="ldap://127.0.0.1:$port"
"$dir/slapd" -f "$dir/slapd.conf" -h "$url/" -d 0 >"$dir/slapd.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  ldapsearch -x -H "$url" -s base -b "" -LLL >/dev/null 2>&1 && break
  sleep 0.1
done

ldapsearch_once() { # output to $1
  ldapsearch -x -H "$url" -D "$reader" -y "$dir/pw" -b "$base" -s sub -E pr=1000/noprompt -LLL "$filter" "${attrs[@]}" > "$1"
}
go test -c -o "$dir/ldap.test" ./source/ldap/
orgsync_once() {
  ORGSYNC_LDAP_BENCH_URL="$url" ORGSYNC_LDAP_BENCH_BASE="$base" ORGSYNC_LDAP_BENCH_BINDDN="$reader" \
    ORGSYNC_LDAP_BENCH_PW=reader-secret ORGSYNC_LDAP_BENCH_USERS="$n" \
    "$dir/ldap.test" -test.run '^$' -test.bench '^BenchmarkRead100k$' -test.benchtime 1x ${ORGSYNC_BENCH_FLAGS:-} |
    awk '/^BenchmarkRead100k/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") printf "%d\n", $i / 1000000 }'
}
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

ldapsearch_once "$dir/out.ldif" # warm the server's cache and check the count
got=$(grep -c '^dn: ' "$dir/out.ldif")
[ "$got" -eq "$n" ] || { echo "ldap-bench: ldapsearch read $got entries, want $n" >&2; exit 1; }
# Alternate the two so that both see the same machine load; keep the best.
best_ls="" best_go=""
for _ in $(seq "$runs"); do
  start=$(date +%s%N); ldapsearch_once /dev/null; t=$(ms "$start")
  if [ -z "$best_ls" ] || [ "$t" -lt "$best_ls" ]; then best_ls=$t; fi
  t=$(orgsync_once)
  [ -n "$t" ] || { echo "ldap-bench: the Go benchmark failed" >&2; exit 1; }
  if [ -z "$best_go" ] || [ "$t" -lt "$best_go" ]; then best_go=$t; fi
done
echo "ldap-bench: $n users, page size 1000, filter $filter, attributes ${attrs[*]}, best of $runs runs each"
echo "ldap-bench: ldapsearch:             ${best_ls} ms"
echo "ldap-bench: orgsync LDAP source:    ${best_go} ms"
awk -v a="$best_ls" -v b="$best_go" 'BEGIN { printf "ldap-bench: speed ratio orgsync/ldapsearch = %.2f (goal >= 0.80)\n", a / b }'
