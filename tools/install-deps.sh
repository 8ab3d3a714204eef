#!/bin/sh
# tools/install-deps.sh: install the Debian packages named that are missing, and leave no daemon on.
#
# Usage: tools/install-deps.sh WHAT PACKAGE...
#   WHAT     what the packages are for, in the one line said ("run", "tests")
#
# Only what is missing is installed, with apt-get (through sudo unless
# root), without recommends. Some of the tests' packages carry a daemon
# (redis-server, distcc) that the tests start themselves on a loopback
# port; Debian would start it and enable it at boot. Here nothing starts
# while the packages install (a policy-rc.d that says no, unless the
# machine has its own), and every daemon of a package this run installed
# (or pulled in) is disabled afterwards and named: its systemd service and
# socket units that were enabled, its init script's links. Timers (man-db's
# daily cache update) are no daemons and stay; services of packages that
# were there before are left as they are.
set -eu

[ $# -ge 2 ] || { echo "usage: tools/install-deps.sh WHAT PACKAGE..." >&2; exit 2; }
what=$1
shift

missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
tmp=$(mktemp -d)
guard=
cleanup() {
	[ -z "$guard" ] || $SUDO rm -f /usr/sbin/policy-rc.d
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "installing for the $what:$missing"
dpkg-query -W -f='${Package}\n' | sort >"$tmp/before"
if [ ! -e /usr/sbin/policy-rc.d ]; then
	# invoke-rc.d asks it before a maintainer script starts a service: 101, "not allowed".
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	guard=1
fi
$SUDO apt-get update -q
# shellcheck disable=SC2086 # one word a package
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
dpkg-query -W -f='${Package}\n' | sort >"$tmp/after"

off=
for p in $(comm -13 "$tmp/before" "$tmp/after"); do
	for unit in $(dpkg -L "$p" | sed -n 's#^/lib/systemd/system/\([^/@]*\.\(service\|socket\)\)$#\1#p'); do
		# A unit with no [Install] (started by another) is never enabled: nothing to do.
		command -v systemctl >/dev/null &&
			[ "$(systemctl is-enabled "$unit" 2>/dev/null)" = enabled ] || continue
		# Without a running systemd (a chroot), systemctl only removes the links.
		if [ -d /run/systemd/system ]; then
			$SUDO systemctl disable --now --quiet "$unit" || :
		else
			$SUDO systemctl disable --quiet "$unit" || :
		fi
		off="$off $unit"
	done
	for script in $(dpkg -L "$p" | sed -n 's#^/etc/init\.d/\([^/]*\)$#\1#p'); do
		# Enabled: a start link in a runlevel; disable turns them into stop links.
		ls /etc/rc[2-5].d/S[0-9][0-9]"$script" >/dev/null 2>&1 || continue
		$SUDO update-rc.d "$script" disable >/dev/null 2>&1 || :
		# Started only if the machine's own policy-rc.d let it.
		if [ -z "$guard" ] && [ ! -d /run/systemd/system ]; then
			$SUDO "/etc/init.d/$script" stop >/dev/null 2>&1 || :
		fi
		off="$off /etc/init.d/$script"
	done
done
[ -z "$off" ] || echo "left disabled and not running:$off (what needs one starts its own)"
