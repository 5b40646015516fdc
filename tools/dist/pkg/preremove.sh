#!/bin/sh
# orgsync's package: before the files go on removal (not on an upgrade),
# the units are stopped and disabled. deb passes "remove", rpm the number
# of versions left (0).
set -e
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
		systemctl disable --now orgsync.service orgsync-sync.timer orgsync-sync.service >/dev/null 2>&1 || true
	fi
	;;
esac
exit 0
