#!/bin/bash
# tests/fresh-debian12.sh: `make test` in a fresh Debian 12 chroot, to show it needs nothing installed by hand.
#
# As root: mmdebstrap makes a bookworm chroot from the mirror this machine's
# apt uses, with what debootstrap installs (variant "important") plus make;
# this repository's HEAD is cloned into /root/mkseries there; /proc, /sys
# and /dev are mounted (and the chroot on itself, so / is a mount point as
# on a machine); and `make test` runs inside, in a clean environment,
# so every other package comes from `make deps` and `make test-deps`; the
# summary fails a goal that left a service enabled at boot or a process
# running. Whatever happens, the mounts
# go on exit and the chroot is removed unless --keep.

set -u

usage() {
	cat <<-EOF
	usage: tests/fresh-debian12.sh [--keep] [--refresh] [--variant V] [--env NAME=VALUE]... [--goal G]... [DIR]

	Runs \`make test\` (or the goals given, in order: \`--goal ci-checks --goal
	test\` is what .ci/run does) on this repository's HEAD in a fresh Debian 12 chroot made
	in DIR (default build/fresh-debian12). Needs root; installs mmdebstrap with
	apt-get if it is missing. MKSERIES_SKIP_REAL is passed in when set.

	  --keep             keep DIR afterwards (removed otherwise)
	  --refresh          make the base system again instead of reusing the
	                     tarball an earlier run left beside DIR
	  --variant V        mmdebstrap variant: minbase, important (default: what
	                     debootstrap installs) or standard
	  --env NAME=VALUE   also set NAME in the chroot's environment
	  --goal G           run \`make G\` (repeat for several, run in order;
	                     default: test)

	Exits with make's status; 1 when the chroot cannot be made, 2 on usage errors.
	EOF
}

die() {
	echo "fresh-debian12: $*" >&2
	exit 1
}

SRC=$(cd "$(dirname "$0")/.." && pwd)
KEEP=
REFRESH=
VARIANT=important
EXTRA_ENV=()
GOALS=()
DIR=

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=1 ;;
	--refresh) REFRESH=1 ;;
	--variant)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		VARIANT=$2
		shift
		;;
	--goal)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		case $2 in
		[a-z]*) GOALS+=("$2") ;;
		*) echo "fresh-debian12: --goal wants a make goal, not '$2'" >&2; exit 2 ;;
		esac
		shift
		;;
	--env)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		case $2 in
		[A-Za-z_]*=*) EXTRA_ENV+=("$2") ;;
		*) echo "fresh-debian12: --env wants NAME=VALUE, not '$2'" >&2; exit 2 ;;
		esac
		shift
		;;
	-h | --help) usage; exit 0 ;;
	-*) echo "fresh-debian12: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	*)
		[ -z "$DIR" ] || { echo "fresh-debian12: one DIR only" >&2; exit 2; }
		DIR=$1
		;;
	esac
	shift
done
case $VARIANT in
minbase | important | standard) ;;
*) echo "fresh-debian12: unknown variant '$VARIANT' (minbase, important, standard)" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot and mounts)"
command -v git >/dev/null || die "needs git on this machine to clone $SRC"

DIR=${DIR:-$SRC/build/fresh-debian12}
mkdir -p "$(dirname "$DIR")" || exit 1
DIR=$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")
# The chroot is removed with rm -rf and its mounts are matched by path: no surprises in it.
case $DIR in
*[!A-Za-z0-9_./-]*) die "'$DIR': use a directory name of letters, digits and ._/- only" ;;
/) die "not the root directory" ;;
esac
CACHE="$DIR.$VARIANT.tar"
LOG="$DIR.log"

# mounts_under DIR: the mount points at or under DIR, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# The chroot is ours only once we made it: never remove what was there before.
if [ -e "$DIR" ]; then
	[ -e "$DIR/.fresh-debian12" ] ||
		die "'$DIR' exists and was not made by this script: remove it or name another"
	[ -z "$(mounts_under "$DIR")" ] || die "'$DIR' has mounts left by an earlier run: $(mounts_under "$DIR" | tr '\n' ' ')"
	echo "fresh-debian12: removing the chroot an earlier run kept in $DIR"
	rm -rf --one-file-system "$DIR" || die "cannot remove '$DIR'"
fi

CREATED=
# End what still runs in the chroot (a test's stray child), unmount, remove.
cleanup() {
	status=$?
	trap - EXIT INT TERM HUP
	if [ -n "$CREATED" ]; then
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$DIR" ] && kill -KILL "${p#/proc/}" 2>/dev/null
		done
		for m in $(mounts_under "$DIR"); do
			umount "$m" 2>/dev/null || umount -l "$m" || echo "fresh-debian12: cannot unmount $m" >&2
		done
		if [ -n "$KEEP" ]; then
			echo "fresh-debian12: kept $DIR (chroot $DIR /bin/bash to look around; mount /proc first)"
		elif [ -n "$(mounts_under "$DIR")" ]; then
			echo "fresh-debian12: $DIR still has mounts: not removed" >&2
			[ "$status" -ne 0 ] || status=1
		else
			rm -rf --one-file-system "$DIR"
		fi
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Debian's mirror and its security mirror, as this machine's apt has them:
# one-line sources (sources.list, sources.list.d/*.list) and deb822
# (sources.list.d/*.sources). Prints "URI SUITE" for each deb entry.
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" { print $2, $3 }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
		function flush(   i, j, nu, ns, u, s) {
			if (types ~ /(^| )deb( |$)/ && enabled != "no") {
				nu = split(uris, u, " "); ns = split(suites, s, " ")
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++)
						print u[i], s[j]
			}
			types = uris = suites = ""; enabled = "yes"
		}
		BEGIN { enabled = "yes" }
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
			if (key == "types") types = val
			else if (key == "uris") uris = val
			else if (key == "suites") suites = val
			else if (key == "enabled") enabled = tolower(val)
		}
		END { flush() }' "$f"
	done
}

RELEASES='^(buster|bullseye|bookworm|trixie|forky|sid|oldstable|stable|testing|unstable)(-updates|-backports)?$'
MIRROR=$(host_sources | awk -v re="$RELEASES" '$2 ~ re { print $1; exit }')
SECURITY=$(host_sources | awk '$2 ~ /-security$|\/updates$/ { print $1; exit }')
[ -n "$MIRROR" ] || die "no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d/"
MIRROR=${MIRROR%/}
SOURCES=("deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main")
if [ -n "$SECURITY" ]; then
	SOURCES+=("deb ${SECURITY%/} bookworm-security main")
else
	echo "fresh-debian12: note: no security mirror in /etc/apt: the chroot has none either"
fi

if ! command -v mmdebstrap >/dev/null; then
	echo "fresh-debian12: installing mmdebstrap"
	apt-get update -q >/dev/null &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap >/dev/null ||
		die "cannot install mmdebstrap with apt-get"
fi

START=$(date +%s)
# elapsed SINCE: "3m05s" from the time SINCE (date +%s) to now.
elapsed() {
	local s=$(($(date +%s) - $1))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

if [ -n "$REFRESH" ] || [ ! -f "$CACHE" ]; then
	echo "fresh-debian12: making a bookworm '$VARIANT' base with make, from $MIRROR"
	part="${CACHE%.tar}.part.tar"
	rm -f "$part"
	mmdebstrap --quiet --variant="$VARIANT" --include=make bookworm "$part" "${SOURCES[@]}" ||
		{ rm -f "$part"; die "mmdebstrap failed"; }
	mv "$part" "$CACHE" || exit 1
	BASE="made by mmdebstrap in $(elapsed "$START"), kept as $CACHE"
else
	BASE="reused $CACHE (--refresh to make it again)"
fi

mkdir "$DIR" || exit 1
CREATED=1
: >"$DIR/.fresh-debian12"
tar --numeric-owner --xattrs --xattrs-include='*' -C "$DIR" -xpf "$CACHE" ||
	die "cannot unpack $CACHE"
# A fresh machine resolves names: give the chroot this machine's resolver.
rm -f "$DIR/etc/resolv.conf"
cp -L /etc/resolv.conf "$DIR/etc/resolv.conf" || exit 1
# A network whose HTTPS goes through a proxy of its own (a site's TLS
# inspection) needs that proxy's CA on every machine in it: this
# machine's local CAs (/usr/local/share/ca-certificates) go into the
# chroot as a bundle for npm (node reads NODE_EXTRA_CA_CERTS). They are
# a setting of the network, as the resolver is, not a package.
HOST_CAS=$(ls /usr/local/share/ca-certificates/*.crt 2>/dev/null)
if [ -n "$HOST_CAS" ]; then
	cat $HOST_CAS >"$DIR/etc/fresh-debian12-host-ca.crt" || exit 1
	EXTRA_ENV+=("NODE_EXTRA_CA_CERTS=/etc/fresh-debian12-host-ca.crt")
fi

# A clean clone of HEAD: no build/, nothing uncommitted.
HEAD=$(git -C "$SRC" rev-parse HEAD) || die "'$SRC' has no HEAD"
BRANCH=$(git -C "$SRC" symbolic-ref -q --short HEAD || echo fresh)
git -C "$SRC" diff --quiet HEAD 2>/dev/null ||
	echo "fresh-debian12: note: uncommitted changes in $SRC are left out: this tests $(git -C "$SRC" rev-parse --short HEAD)"
git init -q "$DIR/root/mkseries" &&
git -C "$DIR/root/mkseries" fetch -q "$SRC" HEAD &&
git -C "$DIR/root/mkseries" checkout -q -b "$BRANCH" FETCH_HEAD ||
	die "cannot clone $SRC into the chroot"

# As on a machine, / is a mount point (unshare --mount makes it private),
# and private, so what is mounted below stays out of other namespaces.
mount --bind "$DIR" "$DIR" &&
mount --make-private "$DIR" &&
mount -t proc proc "$DIR/proc" &&
mount -t sysfs sysfs "$DIR/sys" &&
mount --bind /dev "$DIR/dev" &&
mount --bind /dev/pts "$DIR/dev/pts" &&
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$DIR/dev/shm" ||
	die "cannot mount $DIR, /proc, /sys and /dev in it"

# prove keeps each script's TAP in /root/tap, so the summary can say what
# was skipped and why: a skip is where a missing tool would hide.
ENVIRONMENT=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	LANG=C.UTF-8 TERM=dumb PERL_TEST_HARNESS_DUMP_TAP=/root/tap)
[ -z "${MKSERIES_SKIP_REAL+set}" ] || ENVIRONMENT+=("MKSERIES_SKIP_REAL=$MKSERIES_SKIP_REAL")
ENVIRONMENT+=("${EXTRA_ENV[@]}")
GIVEN="${ENVIRONMENT[*]:5}"
GIVEN=${GIVEN:-nothing but HOME, PATH, LANG and TERM}

# services_on: the daemons the chroot starts at boot (systemd's wants links
# of services and sockets, SysV's S links), one a line, to compare before
# and after make.
services_on() {
	{
		find "$DIR/etc/systemd/system" -path '*.wants/*' \( -name '*.service' -o -name '*.socket' \) \
			-printf '%f\n' 2>/dev/null
		find "$DIR"/etc/rc[2-5].d -name 'S*' -printf '%f\n' 2>/dev/null | sed 's/^S[0-9]*//'
	} | sort -u
}
# running_in_chroot: the processes whose root is the chroot, by name.
running_in_chroot() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$DIR" ] && cat "$p/comm" 2>/dev/null
	done | sort | uniq -c | awk '{ printf "%s%s (%d)", sep, $2, $1; sep = ", " }'
}
services_on >"$DIR/.services-before"

[ ${#GOALS[@]} -gt 0 ] || GOALS=(test)
echo "fresh-debian12: make ${GOALS[*]} on $(git -C "$SRC" rev-parse --short HEAD) ($BRANCH) in $DIR, environment: $GIVEN"
MAKE_START=$(date +%s)
# Each goal in its own make, as .ci/run does; the first that fails stops.
chroot "$DIR" /usr/bin/env -i "${ENVIRONMENT[@]}" /bin/sh -c \
	'cd /root/mkseries && for g; do make "$g" || exit; done' sh "${GOALS[@]}" \
	</dev/null 2>&1 | tee "$LOG"
STATUS=${PIPESTATUS[0]}
MAKE_TIME=$(elapsed "$MAKE_START")

INSTALLED=$(sed -n 's/^installing for the \(.*\): */\1:/p; s/^installing: //p' "$LOG" | paste -sd ';')
# What make left on: a service enabled at boot or a process running fails the run.
ENABLED=$(services_on | comm -13 "$DIR/.services-before" - | paste -sd ' ')
RUNNING=$(running_in_chroot)
if [ -n "$ENABLED$RUNNING" ] && [ "$STATUS" -eq 0 ]; then
	echo "fresh-debian12: make ${GOALS[*]} left daemons on: enabled: ${ENABLED:-none}; running: ${RUNNING:-none}"
	STATUS=1
fi
# "PASS (1499 tests), PASS (233 tests)": the unit tests', then the shell tests' result.
PROVE=$(awk '/^Files=[0-9]+, Tests=/ { split($2, t, "="); n = t[2]; sub(/,$/, "", n) }
	/^Result: / { printf "%s%s (%s tests)", sep, $2, n; sep = ", " }' "$LOG")
# "9 missing REAL_TREES, 1 missing KVM": skipped tests by their reason.
SKIPPED=$(find "$DIR/root/tap" -type f -exec grep -h '^ok [0-9]* # skip ' {} + 2>/dev/null |
	sed -n 's/.*(\([^()]*\))$/\1/p' | sort | uniq -c | sort -rn |
	awk '{ n = $1; $1 = ""; printf "%s%d%s", sep, n, $0; sep = ", " }')
if [ "$STATUS" -eq 0 ]; then RESULT=passed; else RESULT=FAILED; fi
cat <<EOF

== fresh-debian12 summary
commit:       $HEAD ($BRANCH)
chroot:       $DIR, Debian 12 '$VARIANT' + make, from $MIRROR
base:         $BASE
environment:  $GIVEN
installed:    ${INSTALLED:-nothing}
left on:      enabled at boot: ${ENABLED:-none}; running: ${RUNNING:-none}
skipped:      ${SKIPPED:-nothing}
prove:        ${PROVE:-did not run}
make ${GOALS[*]}:   $RESULT (status $STATUS) in $MAKE_TIME; $(elapsed "$START") in all; log: $LOG
EOF
exit "$STATUS"
