#!/bin/bash
# Debian packages of another architecture, unpacked for the harness (never
# installed on the host): the static busybox of a guest and Debian's own
# kernel configs.
#
#   foreign.sh ARCH PACKAGE[=VERSION]...
#                                unpack each PACKAGE (at VERSION, or the
#                                candidate of apt's lists for ARCH) into
#                                $BUILD/foreign/ARCH/root (with dpkg -x)
#   foreign.sh ARCH --path       print that root
#
# apt works on its own lists for ARCH ($BUILD/foreign/ARCH/apt; the host's
# sources, ARCH as the only architecture), so the host's apt state is left
# alone. A package already unpacked at the same version is not fetched
# again.
. "$(dirname "$0")/lib.sh"

ARCH=${1:?usage: foreign.sh ARCH PACKAGE... | ARCH --path}
shift
FD=$BUILD/foreign/$ARCH
ROOT=$FD/root
APTDIR=$FD/apt

if [[ ${1:-} == --path ]]; then
	printf '%s\n' "$ROOT"
	exit 0
fi

apt_opts() {
	printf '%s\n' -o "APT::Architecture=$ARCH" -o "APT::Architectures=$ARCH" \
		-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache" \
		-o "Dir::State::status=$APTDIR/status" -o Debug::NoLocking=1
}

update_lists() {
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	touch "$APTDIR/status"
	local -a opts
	mapfile -t opts < <(apt_opts)
	# Once a day is enough.
	if [[ -f $APTDIR/updated && $(find "$APTDIR/updated" -mmin -1440) ]]; then
		return 0
	fi
	run_logged "apt-get update for $ARCH" "$LOGS/foreign-$ARCH.log" apt-get "${opts[@]}" update
	touch "$APTDIR/updated"
}

# fetch PACKAGE[=VERSION]: the candidate version unless one is given.
fetch() {
	local pkg=${1%%=*} version deb
	local -a opts
	mapfile -t opts < <(apt_opts)
	if [[ $1 == *=* ]]; then
		version=${1#*=}
	else
		version=$(apt-cache "${opts[@]}" policy "$pkg" | awk '/Candidate:/ { print $2 }')
	fi
	[[ -n $version && $version != "(none)" ]] || die "apt knows no $pkg for $ARCH"
	if [[ -f $FD/unpacked/$pkg && $(cat "$FD/unpacked/$pkg") == "$version" ]]; then
		return 0
	fi
	mkdir -p "$FD/debs" "$FD/unpacked" "$ROOT"
	(cd "$FD/debs" && apt-get "${opts[@]}" download "$pkg=$version") >>"$LOGS/foreign-$ARCH.log" 2>&1 ||
		die "cannot download $pkg=$version for $ARCH (log: $(show_path "$LOGS/foreign-$ARCH.log"))"
	deb=$(ls -1t "$FD/debs/${pkg}_"*"_"*.deb | head -n 1)
	dpkg -x "$deb" "$ROOT"
	printf '%s\n' "$version" >"$FD/unpacked/$pkg"
	say "unpacked $pkg $version ($ARCH) into $(show_path "$ROOT")"
}

update_lists
for pkg in "$@"; do
	fetch "$pkg"
done
