#!/bin/bash
# make deb: Debian packages of the series.
#
#   deb.sh tool     allocinfo_VERSION_ARCH.deb: tools/mm/allocinfo of the
#                   series in /usr/bin with its manual page, and a systemd
#                   timer that writes the profile as Prometheus metrics to
#                   the node exporter's textfile directory every 30 s
#                   (packaging/allocinfo/debian); a native source package
#                   beside it; lintian must report no error
#   deb.sh kernel   linux-image-*.deb (and headers) of Debian's cloud-amd64
#                   config with the series, profiling built in and on
#                   (configs/distro-on.config), from the kernel's own
#                   bindeb-pkg (DEB_FLAVOUR=amd64 for the other flavour);
#                   about an hour of two cores cold
#   deb.sh all      both (default)
#
# Everything goes to $BUILD/deb; the list of packages made to
# $BUILD/deb/packages. VERSION is <base kernel version>+allocprof<series
# version>.<date of the last change of patches/>, so that a newer series
# upgrades an older one.
. "$(dirname "$0")/lib.sh"

DEB=$BUILD/deb
SERIES_VERSION=$(tr -d ' \t\n' <"$TOP/packaging/SERIES_VERSION")
MAINTAINER="allocprof developers <dev@allocprof.invalid>"

base_upstream() {
	local v
	v=$(tr -d ' \t\n' <"$TOP/BASE_VERSION")
	printf '%s\n' "${v%-*}"
}

series_date() {
	local d
	d=$(git -C "$TOP" log -1 --format=%cd --date=format:%Y%m%d -- patches 2>/dev/null || true)
	printf '%s\n' "${d:-$(date +%Y%m%d)}"
}

package_version() {
	printf '%s+allocprof%s.%s\n' "$(base_upstream)" "$SERIES_VERSION" "$(series_date)"
}

# lintian_check CHANGES LOG: no error (E:) tag, else fail with them.
lintian_check() {
	local changes=$1 log=$2 errors
	lintian --no-cfg --fail-on none --info "$changes" >"$log" 2>&1 ||
		die "lintian could not check $(show_path "$changes") (log: $(show_path "$log"))"
	errors=$(grep -E '^E: ' "$log" || true)
	[[ -z $errors ]] || die "lintian reports errors on $(show_path "$changes"):"$'\n'"$errors"
	say "lintian: no error, $(grep -c '^W: ' "$log" || true) warnings, $(grep -c '^I: ' "$log" || true) notes (log: $(show_path "$log"))"
}

build_tool() {
	local version src stage changes arch
	"$TOP/scripts/tree.sh" ensure
	version=$(package_version)
	arch=$(dpkg --print-architecture)
	src=allocinfo-$version
	stage=$DEB/tool/$src
	rm -rf "$DEB/tool"
	mkdir -p "$stage/tools/mm" "$stage/include/uapi/linux"
	for f in Makefile allocinfo.c allocinfo.1; do
		[[ -f $TREE/tools/mm/$f ]] || die "the tree has no tools/mm/$f (is the series applied?)"
		cp "$TREE/tools/mm/$f" "$stage/tools/mm/"
	done
	cp "$TREE/include/uapi/linux/alloc_tag.h" "$stage/include/uapi/linux/"
	cp -r "$TOP/packaging/allocinfo/debian" "$stage/"
	{
		printf 'allocinfo (%s) unstable; urgency=medium\n\n' "$version"
		printf '  * tools/mm/allocinfo of the allocprof series v%s on Linux %s.\n\n' \
			"$SERIES_VERSION" "$(tr -d ' \t\n' <"$TOP/BASE_VERSION")"
		printf ' -- %s  %s\n' "$MAINTAINER" \
			"$(git -C "$TREE" log -1 --format=%cD HEAD 2>/dev/null || date -R)"
	} >"$stage/debian/changelog"
	run_logged "building the allocinfo package $version" "$LOGS/deb-tool.log" \
		env -C "$stage" dpkg-buildpackage -us -uc
	changes=$DEB/tool/allocinfo_${version}_$arch.changes
	[[ -f $changes ]] || die "dpkg-buildpackage made no $(show_path "$changes")"
	lintian_check "$changes" "$LOGS/deb-tool-lintian.log"
	mkdir -p "$DEB"
	cp "$DEB/tool/allocinfo_${version}_$arch.deb" "$DEB/"
	echo "$DEB/allocinfo_${version}_$arch.deb" >>"$DEB/packages.tmp"
	say "allocinfo package: $(show_path "$DEB/allocinfo_${version}_$arch.deb")"
}

# The kernel: Debian's config of DEB_FLAVOUR as a user builds it
# (debian_user_config) plus configs/distro-on.config, in its own O= dir,
# packaged by the kernel's bindeb-pkg: linux-image-<release> (its postinst
# runs /etc/kernel/postinst.d, which makes the initramfs) and
# linux-headers-<release>, <release> being 6.1.N-allocprof-FLAVOUR.
build_kernel() {
	local flavour=${DEB_FLAVOUR:-cloud-amd64} version out xz frag localver kcc f
	local -a debs
	"$TOP/scripts/tree.sh" ensure
	version=$(package_version)
	xz=/usr/src/linux-config-6.1/config.amd64_none_$flavour.xz
	[[ -f $xz ]] || die "no Debian config $xz (package linux-config-6.1; flavours: cloud-amd64 amd64)"
	frag=$TOP/configs/distro-on.config
	out=$BUILD/out/deb-$flavour
	localver=-allocprof-$flavour
	kcc=$(kernel_cc)
	mkdir -p "$out"
	: >"$LOGS/deb-kernel-$flavour.log"
	kmake_deb() {
		make -C "$TREE" O="$out" ARCH=x86_64 CC="$kcc" HOSTCC="$kcc" \
			LOCALVERSION="$localver" KBUILD_BUILD_USER=allocprof \
			KBUILD_BUILD_HOST=allocprof "$@"
	}
	configure_deb() {
		debian_user_config "$TREE" "$xz" "$out/.config"
		(cd "$out" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag")
		kmake_deb -s olddefconfig
		"$TOP/scripts/kconfig-verify.py" "$out/.config" "$frag"
	}
	run_logged "configuring Debian's $flavour kernel with the series" \
		"$LOGS/deb-kernel-$flavour.log" configure_deb
	# bindeb-pkg builds what is not built yet (an interrupted run goes on
	# where it stopped) and writes the packages beside $out.
	rm -f "$BUILD"/out/linux-*_"${version}"_*.deb
	run_logged "building and packaging Debian's $flavour kernel ($version)" \
		"$LOGS/deb-kernel-$flavour.log" \
		kmake_deb -j"$NPROC" KDEB_PKGVERSION="$version" KDEB_SOURCENAME=linux-allocprof \
		KDEB_CHANGELOG_DIST=bookworm bindeb-pkg
	mapfile -t debs < <(find "$BUILD/out" -maxdepth 1 -name "linux-*_${version}_*.deb")
	((${#debs[@]} > 0)) || die "bindeb-pkg made no package of version $version"
	for f in "${debs[@]}"; do
		mv -f "$f" "$DEB/"
		echo "$DEB/$(basename "$f")" >>"$DEB/packages.tmp"
		say "kernel package: $(show_path "$DEB/$(basename "$f")")"
	done
}

mkdir -p "$DEB"
rm -f "$DEB/packages.tmp"
case ${1:-all} in
tool) build_tool ;;
kernel) build_kernel ;;
all)
	build_tool
	build_kernel
	;;
*) die "usage: $0 [tool|kernel|all]" ;;
esac
mv "$DEB/packages.tmp" "$DEB/packages"
