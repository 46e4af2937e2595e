#!/bin/bash
# Install what the harness needs and cache the pinned base kernel source.
#
#   deps.sh packages   host packages (only the missing ones are installed)
#   deps.sh base       cache the base tarball as
#                      $BUILD/base/linux-source-6.1_<version>.tar.xz (installing
#                      linux-source-6.1 at the version pinned in BASE_VERSION
#                      when it is not cached yet) and write the version used
#                      to $BUILD/base/version
#   deps.sh all        both (default)
. "$(dirname "$0")/lib.sh"

# (python3-ply and python3-git: checkpatch.pl's SPDX license check;
# prometheus: promtool checks allocinfo's --prometheus output;
# python3-sphinx, python3-sphinx-rtd-theme: make htmldocs;
# e2fsprogs, util-linux: the guests' scratch ext4 and swap disks;
# linux-config-6.1, lz4, openssl: Debian's own configs, for make
# distro-check: LZ4-compressed bzImage, module signing key; rt-tests:
# hackbench, a workload of make bench; libbpf-dev, zlib1g-dev (with
# libelf-dev): the BPF peer rows of make bench, whose loader links
# statically against libbpf.a, libelf.a and libz.a (its BPF object needs
# clang, which scripts/bench.sh installs when missing, as arch-check.sh
# does: no make test needs it);
# gcc-i686-linux-gnu, libc6-dev-i386-cross: the 32-bit build of the ioctl
# kselftest, a compat caller (not gcc-multilib: Debian 12's conflicts with
# the cross compilers); gcc-aarch64-linux-gnu, libc6-dev-arm64-cross,
# qemu-system-arm: the arm64 guests; gcc-arm-linux-gnueabihf,
# libc6-dev-armhf-cross: the 32-bit ARM caller of the ioctls on arm64; debhelper, dpkg-dev, fakeroot,
# lintian: make deb; debootstrap: make debian-boot)
PACKAGES=(
	qemu-system-x86 busybox-static ccache flex bison libelf-dev libssl-dev
	bc cpio kmod rsync python3 gcc libc6-dev make perl dwarves git xz-utils
	python3-ply python3-git prometheus python3-sphinx python3-sphinx-rtd-theme
	e2fsprogs util-linux linux-config-6.1 lz4 openssl rt-tests
	libbpf-dev zlib1g-dev
	gcc-i686-linux-gnu libc6-dev-i386-cross gcc-aarch64-linux-gnu
	libc6-dev-arm64-cross qemu-system-arm gcc-arm-linux-gnueabihf
	libc6-dev-armhf-cross
	debhelper dpkg-dev fakeroot lintian debootstrap file
)
SOURCE_PKG=linux-source-6.1
SOURCE_TARBALL=/usr/src/linux-source-6.1.tar.xz
BASEDIR=$BUILD/base
APT_UPDATED=0

pinned_version() {
	tr -d ' \t\n' <"$TOP/BASE_VERSION"
}

apt_get() {
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@"
}

apt_update_once() {
	if ((APT_UPDATED == 0)); then
		run_logged "apt-get update" "$LOGS/apt.log" apt_get update
		APT_UPDATED=1
	fi
}

installed_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		awk '$3 == "installed" { print $4 }'
}

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		[[ -n $(installed_version "$p") ]] || printf '%s\n' "$p"
	done
}

ensure_packages() {
	local missing
	mapfile -t missing < <(missing_packages)
	((${#missing[@]} == 0)) && return 0
	say "missing packages: ${missing[*]}"
	apt_update_once
	run_logged "installing ${#missing[@]} packages" "$LOGS/apt.log" \
		apt_get install --no-install-recommends "${missing[@]}"
}

cached_tarball() { printf '%s/linux-source-6.1_%s.tar.xz' "$BASEDIR" "$1"; }

# Which version of linux-source-6.1 apt would give us for the pinned one:
# the pinned version when still served, else the candidate (loudly).
resolve_version() {
	local pinned=$1 candidate
	if apt-cache madison "$SOURCE_PKG" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		grep -qxF "$pinned"; then
		printf '%s\n' "$pinned"
		return
	fi
	candidate=$(apt-cache policy "$SOURCE_PKG" | awk '/Candidate:/ { print $2 }')
	[[ -n $candidate && $candidate != "(none)" ]] ||
		die "apt knows no version of $SOURCE_PKG (is the Debian archive in sources.list?)"
	loud "$SOURCE_PKG $pinned (pinned in BASE_VERSION) is no longer served by apt." \
		"USING THE CANDIDATE VERSION $candidate INSTEAD." \
		"If the series does not apply to it, update the patches and BASE_VERSION."
	printf '%s\n' "$candidate"
}

ensure_base() {
	local pinned version tarball
	pinned=$(pinned_version)
	mkdir -p "$BASEDIR"
	# A previous run may have had to fall back to another version.
	if [[ -f $BASEDIR/resolved-$pinned ]]; then
		version=$(cat "$BASEDIR/resolved-$pinned")
	else
		version=$pinned
	fi
	tarball=$(cached_tarball "$version")
	if [[ ! -f $tarball ]]; then
		if [[ $(installed_version "$SOURCE_PKG") != "$version" || ! -f $SOURCE_TARBALL ]]; then
			apt_update_once
			version=$(resolve_version "$pinned")
			tarball=$(cached_tarball "$version")
			run_logged "installing $SOURCE_PKG=$version" "$LOGS/apt.log" \
				apt_get install --no-install-recommends --allow-downgrades "$SOURCE_PKG=$version"
		fi
		say "caching $SOURCE_TARBALL as $(show_path "$tarball")"
		cp "$SOURCE_TARBALL" "$tarball.tmp"
		mv "$tarball.tmp" "$tarball"
		printf '%s\n' "$version" >"$BASEDIR/resolved-$pinned"
	fi
	if [[ $version != "$pinned" ]]; then
		loud "base source is $SOURCE_PKG $version, NOT the pinned $pinned (no longer served)."
	fi
	printf '%s\n' "$version" >"$BASEDIR/version.tmp"
	mv "$BASEDIR/version.tmp" "$BASEDIR/version"
}

case ${1:-all} in
packages) ensure_packages ;;
base) ensure_base ;;
all)
	ensure_packages
	ensure_base
	;;
*) die "usage: $0 [packages|base|all]" ;;
esac
