#!/usr/bin/env bash
# Compares orgsync's LDAP source with OpenLDAP's ldapsearch on the same
# server: starts a throw-away slapd with N generated users (default
# 100,000), reads them all with `ldapsearch -E pr=1000/noprompt`, with the
# Go benchmark BenchmarkRead100k (the source as shipped, same filter, page
# size and attributes) and with BenchmarkRead100kGoLDAP (the same source
# code over go-ldap's own client instead of source/ldap/wire.go), and
# prints the times and the ratios (ldapsearch time / Go time; at least 0.8
# is the goal). The three are run alternately, each run's time is printed
# with the load average (and, for the Go ones, the memory allocated), and
# the best of each is kept.
# Usage: scripts/ldap-bench.sh [N] [runs]
# ORGSYNC_LDAP_BENCH_GOLDAP picks the go-ldap variant: SearchAsync
# (default: entries stream while slapd sends), Search (page by page), or
# empty to leave go-ldap out.
set -euo pipefail
n=${1:-100000}
runs=${2:-5}
goldap=${ORGSYNC_LDAP_BENCH_GOLDAP-SearchAsync}
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
go_once() { # benchmark name; prints its time in ms, then ", MB and allocations"
  ORGSYNC_LDAP_BENCH_URL="$url" ORGSYNC_LDAP_BENCH_BASE="$base" ORGSYNC_LDAP_BENCH_BINDDN="$reader" \
    ORGSYNC_LDAP_BENCH_PW=reader-secret ORGSYNC_LDAP_BENCH_USERS="$n" \
    "$dir/ldap.test" -test.run '^$' -test.bench "^$1\$" -test.benchtime 1x -test.benchmem ${ORGSYNC_BENCH_FLAGS:-} |
    awk '/^Benchmark/ { for (i = 1; i <= NF; i++) {
      if ($(i+1) == "ns/op") ms = $i / 1000000
      if ($(i+1) == "B/op") mb = $i / 1000000
      if ($(i+1) == "allocs/op") allocs = $i
    } printf "%d, %d MB allocated in %d allocations\n", ms, mb, allocs }'
}
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

ldapsearch_once "$dir/out.ldif" # warm the server's cache and check the count
got=$(grep -c '^dn: ' "$dir/out.ldif")
[ "$got" -eq "$n" ] || { echo "ldap-bench: ldapsearch read $got entries, want $n" >&2; exit 1; }

names=(ldapsearch "orgsync LDAP source")
benches=("" BenchmarkRead100k)
if [ -n "$goldap" ]; then
  names+=("go-ldap client ($goldap)")
  benches+=("BenchmarkRead100kGoLDAP/$goldap")
fi
best=()
# Alternate them so that all see the same machine load; keep the best.
for r in $(seq "$runs"); do
  for k in "${!names[@]}"; do
    mem=""
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    if [ "$k" -eq 0 ]; then
      start=$(date +%s%N); ldapsearch_once /dev/null; t=$(ms "$start")
    else
      out=$(go_once "${benches[$k]}")
      [ -n "$out" ] || { echo "ldap-bench: ${benches[$k]} failed" >&2; exit 1; }
      t=${out%%,*} mem=${out#*,}
    fi
    echo "ldap-bench: run $r: ${names[$k]}: $t ms${mem:+,$mem} (load average $load)"
    if [ -z "${best[$k]:-}" ] || [ "$t" -lt "${best[$k]}" ]; then best[$k]=$t; fi
  done
done
echo "ldap-bench: $n users, page size 1000, filter $filter, attributes ${attrs[*]}, best of $runs runs each"
for k in "${!names[@]}"; do
  printf "ldap-bench: %-32s %6d ms" "${names[$k]}:" "${best[$k]}"
  [ "$k" -eq 0 ] && { echo; continue; }
  awk -v a="${best[0]}" -v b="${best[$k]}" 'BEGIN { printf "   speed ratio to ldapsearch %.2f (goal >= 0.80)\n", a / b }'
done
