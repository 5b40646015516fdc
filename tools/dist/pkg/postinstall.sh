#!/bin/sh
# orgsync's package: after the files are in place, systemd learns of the
# units. Nothing is enabled or started: the configuration must be filled in
# first (docs/deployment.md: init, validate, plan, then enable the timer or
# the service). An upgrade restarts what was running.
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
	systemctl daemon-reload >/dev/null || true
	for unit in orgsync.service orgsync-sync.timer; do
		if systemctl is-active --quiet "$unit"; then
			systemctl try-restart "$unit" >/dev/null || true
		fi
	done
fi
if [ ! -s /etc/orgsync/orgsync.yaml ] || grep -q "FILL IN" /etc/orgsync/orgsync.yaml; then
	echo "orgsync: fill in /etc/orgsync/orgsync.yaml, then: orgsync validate --config /etc/orgsync/orgsync.yaml" \
		"and systemctl enable --now orgsync-sync.timer (or orgsync.service for the daemon)"
fi
exit 0
