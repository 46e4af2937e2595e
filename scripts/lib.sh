# shellcheck shell=bash
# Common helpers for the allocprof harness. Source this from every script:
#   . "$(dirname "$0")/lib.sh"
# Environment: BUILD (default <repo>/build), set by the Makefile.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
LOGS=$BUILD/logs
TREE=$BUILD/linux
PATCHES=$TOP/patches
mkdir -p "$LOGS"

# The outer make's variables (CONFIG=, BUILD=, ...) must not leak into the
# kernel's own make through MAKEFLAGS.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

NPROC=$(nproc)
# The compiler of kernel builds: through ccache, unless CCACHE=0 or there is
# none.  On a machine that builds once (CI: a fresh machine and an empty
# cache) every compile misses, and a miss costs ccache a second
# preprocessor run and a store: a cold profiling build took about 37
# CPU-minutes through ccache and 32 without.
kernel_cc() {
	local cc=${1:-}gcc
	if [[ ${CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
		echo "ccache $cc"
	else
		echo "$cc"
	fi
}

now() { date +%H:%M:%S; }

# Print a progress/info line: [hh:mm:ss] message
say() { printf '[%s] %s\n' "$(now)" "$*"; }

warn() { printf '[%s] WARNING: %s\n' "$(now)" "$*" >&2; }

die() {
	printf '[%s] ERROR: %s\n' "$(now)" "$*" >&2
	exit 1
}

# Loud banner for things a human must not miss.
loud() {
	local line='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
	printf '%s\n' "$line" >&2
	printf '!!! %s\n' "$@" >&2
	printf '%s\n' "$line" >&2
}

# Shorten an absolute path for display (relative to the current directory).
show_path() {
	local p=$1
	case $p in
	"$PWD"/*) printf '%s' "${p#"$PWD"/}" ;;
	*) printf '%s' "$p" ;;
	esac
}

# Seconds -> "1m05s"
fmt_secs() {
	local s=$1
	if ((s >= 60)); then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# Print the last lines of a log file, indented, after a failure.
show_log_tail() {
	local log=$1 n=${2:-40}
	printf -- '---- last %d lines of %s ----\n' "$n" "$(show_path "$log")" >&2
	tail -n "$n" "$log" | sed 's/^/  | /' >&2 || true
	printf -- '---- end of %s ----\n' "$(show_path "$log")" >&2
}

# run_logged DESCRIPTION LOGFILE COMMAND...
# Runs COMMAND with all output appended to LOGFILE, prints a start line, a
# heartbeat every HEARTBEAT seconds (default 30) and an end line with the
# elapsed time. On failure prints the tail of the log and exits the script
# (never call it as "run_logged ... || x": bash would then ignore set -e
# inside COMMAND). HEARTBEAT_INFO may name a function whose output (one
# line, e.g. "812/2226 objects") is added to each heartbeat.
run_logged() {
	local desc=$1 log=$2
	shift 2
	local beat=${HEARTBEAT:-30}
	local start pid status=0 next
	mkdir -p "$(dirname "$log")"
	say "$desc (log: $(show_path "$log"))"
	start=$SECONDS
	next=$((start + beat))
	"$@" >>"$log" 2>&1 </dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)) && kill -0 "$pid" 2>/dev/null; then
			say "  ... still $desc: $(fmt_secs $((SECONDS - start))), log has $(wc -l <"$log") lines${HEARTBEAT_INFO:+, $("$HEARTBEAT_INFO" 2>/dev/null || true)}"
			next=$((SECONDS + beat))
		fi
	done
	wait "$pid" || status=$?
	if ((status != 0)); then
		say "FAILED: $desc after $(fmt_secs $((SECONDS - start))) (exit $status)"
		show_log_tail "$log" 40
		die "$desc failed (full log: $(show_path "$log"))"
	fi
	say "done: $desc ($(fmt_secs $((SECONDS - start))))"
}

# Run a command as root (directly, or through sudo when not root).
as_root() {
	if ((EUID == 0)); then
		"$@"
	else
		sudo "$@"
	fi
}

# debian_user_config SRC CONFIG_XZ DOTCONFIG: Debian's config CONFIG_XZ
# (package linux-config-6.1) as a user would build it, written to
# DOTCONFIG (olddefconfig is the caller's): no debug info (hours less), no
# Debian signing certificates (the build makes a throwaway module signing
# key), the rest as Debian ships it.
debian_user_config() {
	local src=$1 xz=$2 dotconfig=$3
	xzcat "$xz" >"$dotconfig"
	"$src/scripts/config" --file "$dotconfig" \
		-d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 \
		-d DEBUG_INFO_DWARF5 -d DEBUG_INFO_BTF -e DEBUG_INFO_NONE \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY certs/signing_key.pem \
		--set-str BUILD_SALT "allocprof"
}

# Names of the configs: base.config is merged into every one of them.
config_file() { printf '%s/configs/%s.config\n' "$TOP" "$1"; }

# The architecture of config NAME: the "# arch: ARCH" line of its fragment
# (kernel ARCH names: x86_64, arm64, i386), x86_64 without one.
config_arch() {
	local a
	a=$(sed -n 's/^#[[:space:]]*arch:[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$(config_file "$1")" 2>/dev/null | head -n 1)
	printf '%s\n' "${a:-x86_64}"
}

# The skips config NAME allows: the regular expressions of its
# "# allow-skip: REGEX" lines, one a line. In a config with profiling a
# skipped test fails (scripts/report.py) unless "NAME # DIRECTIVE" of its
# result matches one of them: what the machine lacks by design (no NUMA
# on i386, huge pages larger than the guest), said in the config.
config_allow_skips() {
	sed -n 's/^#[[:space:]]*allow-skip:[[:space:]]*//p' "$(config_file "$1")" 2>/dev/null
}

# The toolchain of config NAME: "llvm" for a "# toolchain: llvm" line
# (clang and LLVM's tools, LLVM=1), "gcc" without one.
config_toolchain() {
	local t
	t=$(sed -n 's/^#[[:space:]]*toolchain:[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$(config_file "$1")" 2>/dev/null | head -n 1)
	printf '%s\n' "${t:-gcc}"
}

# The fragment NAME stands for on ARCH: configs/NAME.ARCH.config when there
# is one (what differs by architecture: the console, NUMA's firmware
# option, Debian's values of the core options), else configs/NAME.config.
arch_fragment() {
	local name=$1 arch=$2
	if [[ $arch != x86_64 && -f $TOP/configs/$name.$arch.config ]]; then
		printf '%s/configs/%s.%s.config\n' "$TOP" "$name" "$arch"
	else
		config_file "$name"
	fi
}

# Fragments for NAME on ARCH, in merge order: includes (recursively), NAME.
resolve_fragments() {
	local name=$1 arch=$2 file inc
	file=$(arch_fragment "$name" "$arch")
	[[ -f $file ]] || die "no config fragment $(show_path "$file") (configs: $(cd "$TOP/configs" && ls -- *.config | sed 's/\.config$//' | tr '\n' ' '))"
	for inc in $(sed -n 's/^#[[:space:]]*include:[[:space:]]*\([^[:space:]]*\)\.config.*/\1/p' "$file"); do
		resolve_fragments "$inc" "$arch"
	done
	printf '%s\n' "$file"
}

# Every fragment of config NAME: base (and base.ARCH), then NAME's.
fragments_for() {
	local arch
	arch=$(config_arch "$1")
	{
		config_file base
		[[ $arch == x86_64 || ! -f $TOP/configs/base.$arch.config ]] ||
			printf '%s/configs/base.%s.config\n' "$TOP" "$arch"
		resolve_fragments "$1" "$arch"
	} | awk '!seen[$0]++'
}

# What building and booting for kernel ARCH takes: the cross compiler
# prefix, the image make target and where it lands, QEMU, the serial
# console device (and its char device major:minor for the initramfs).
arch_cross() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	*) echo "" ;;
	esac
}
# The prefix of the compiler of user-space programs for ARCH (the host gcc
# builds i386 kernels, not static i386 programs: Debian's
# gcc-i686-linux-gnu does).
arch_user_cross() {
	case $1 in
	i386) echo i686-linux-gnu- ;;
	*) arch_cross "$1" ;;
	esac
}
arch_qemu() {
	case $1 in
	arm64) echo qemu-system-aarch64 ;;
	i386) echo qemu-system-i386 ;;
	*) echo qemu-system-x86_64 ;;
	esac
}
arch_image_target() {
	case $1 in
	arm64) echo Image ;;
	*) echo bzImage ;;
	esac
}
arch_image() {
	case $1 in
	arm64) echo arch/arm64/boot/Image ;;
	*) echo arch/x86/boot/bzImage ;;
	esac
}
arch_console() {
	case $1 in
	arm64) echo ttyAMA0 ;;
	*) echo ttyS0 ;;
	esac
}
arch_console_node() {
	case $1 in
	arm64) echo 204:64 ;;
	*) echo 4:64 ;;
	esac
}

# The architecture of a configured O= directory (from its .config).
out_arch() {
	if grep -q '^CONFIG_ARM64=y' "$1/.config" 2>/dev/null; then
		echo arm64
	elif grep -q '^CONFIG_X86_32=y' "$1/.config" 2>/dev/null; then
		echo i386
	else
		echo x86_64
	fi
}

# status_value FILE KEY: the value of a KEY=value line of a status file
# (written by boot.sh), empty when absent.
status_value() {
	sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n 1
}

out_dir() { printf '%s/out/%s\n' "$BUILD" "$1"; }

# Where scripts/kselftests.sh puts the kselftests of kernel ARCH.
kselftest_dir() {
	if [[ ${1:-x86_64} == x86_64 ]]; then
		printf '%s/out/kselftest\n' "$BUILD"
	else
		printf '%s/out/kselftest-%s\n' "$BUILD" "$1"
	fi
}
