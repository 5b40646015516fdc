#!/bin/sh
# orgsync's package: before the files are unpacked, the system user and
# group orgsync that the service runs as, with /var/lib/orgsync (the state
# directory) as its home. Nothing is done when they exist.
set -e
if ! getent group orgsync >/dev/null; then
	groupadd --system orgsync
fi
if ! getent passwd orgsync >/dev/null; then
	useradd --system --gid orgsync --home-dir /var/lib/orgsync --no-create-home \
		--shell /usr/sbin/nologin --comment "orgsync directory sync" orgsync
fi
exit 0
