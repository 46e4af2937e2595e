#!/bin/bash
# Regenerate configs/debian-mm.config: Debian's values for the options of
# the core Kconfig files (scripts/debian-config.py says which), from
# Debian's cloud-amd64 config of the version in BASE_VERSION
# (linux-config-6.1, installed if missing), checked against the tree of
# build/linux.
#
#   debian-config.sh           regenerate the fragment
#   debian-config.sh generate arm64
#                              regenerate configs/debian-mm.arm64.config
#                              from Debian's cloud-arm64 config (fetched
#                              by scripts/foreign.sh)
#   debian-config.sh report    what our CI kernels (build/out/*/.config)
#                              still set differently from Debian, and why
. "$(dirname "$0")/lib.sh"

VERSION=$(tr -d ' \t\n' <"$TOP/BASE_VERSION")
DEBIAN=/usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz
LOG=$LOGS/debian-config.log

have=$(dpkg-query -W -f='${Version}' linux-config-6.1 2>/dev/null || true)
if [[ $have != "$VERSION" ]]; then
	say "installing linux-config-6.1=$VERSION (log: $(show_path "$LOG"))"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q install \
		"linux-config-6.1=$VERSION" >>"$LOG" 2>&1 ||
		die "cannot install linux-config-6.1=$VERSION (see $(show_path "$LOG"))"
fi
[[ -f $DEBIAN ]] || die "no $DEBIAN"

case ${1:-generate} in
generate)
	"$(dirname "$0")/tree.sh" ensure
	if [[ ${2:-x86_64} == arm64 ]]; then
		"$TOP/scripts/foreign.sh" arm64 "linux-config-6.1=$VERSION"
		DEBIAN=$("$TOP/scripts/foreign.sh" arm64 --path)/usr/src/linux-config-6.1/config.arm64_none_cloud-arm64.xz
		[[ -f $DEBIAN ]] || die "no $DEBIAN"
		say "generating configs/debian-mm.arm64.config from $(basename "$DEBIAN") $VERSION (log: $(show_path "$LOG"))"
		python3 "$TOP/scripts/debian-config.py" generate "$TREE" "$DEBIAN" \
			"$TOP/configs/debian-mm.arm64.config" arm64 2>&1 | tee -a "$LOG"
	else
		say "generating configs/debian-mm.config from $(basename "$DEBIAN") $VERSION (log: $(show_path "$LOG"))"
		python3 "$TOP/scripts/debian-config.py" generate "$TREE" "$DEBIAN" \
			"$TOP/configs/debian-mm.config" 2>&1 | tee -a "$LOG"
	fi
	;;
report)
	shopt -s nullglob
	finals=()
	for c in "$BUILD"/out/{off,profiling,debug}/.config; do finals+=("$c"); done
	((${#finals[@]})) || die "no built CI kernels under $(show_path "$BUILD/out")"
	TREE=$TREE python3 "$TOP/scripts/debian-config.py" report "$DEBIAN" "${finals[@]}"
	;;
*)
	die "usage: debian-config.sh [generate [arm64]|report]"
	;;
esac
