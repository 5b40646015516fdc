#!/bin/sh
# orgsync's package: after the files went, systemd forgets the units. On
# purge (deb), the state directory goes too; the configuration under
# /etc/orgsync is removed by the package manager on purge only. The user
# orgsync is kept (files it owned may remain elsewhere).
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
	systemctl daemon-reload >/dev/null || true
fi
if [ "$1" = "purge" ]; then
	rm -rf /var/lib/orgsync /var/log/orgsync
fi
exit 0
