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
	if [[ ${CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
		echo "ccache gcc"
	else
		echo gcc
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
# inside COMMAND).
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
			say "  ... still $desc: $(fmt_secs $((SECONDS - start))), log has $(wc -l <"$log") lines"
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

# Fragments for NAME, in merge order: base, includes (recursively), NAME.
resolve_fragments() {
	local name=$1 file inc
	file=$(config_file "$name")
	[[ -f $file ]] || die "no config fragment $(show_path "$file") (configs: $(cd "$TOP/configs" && ls -- *.config | sed 's/\.config$//' | tr '\n' ' '))"
	for inc in $(sed -n 's/^#[[:space:]]*include:[[:space:]]*\([^[:space:]]*\)\.config.*/\1/p' "$file"); do
		resolve_fragments "$inc"
	done
	printf '%s\n' "$file"
}

fragments_for() {
	{
		config_file base
		resolve_fragments "$1"
	} | awk '!seen[$0]++'
}

# status_value FILE KEY: the value of a KEY=value line of a status file
# (written by boot.sh), empty when absent.
status_value() {
	sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n 1
}

out_dir() { printf '%s/out/%s\n' "$BUILD" "$1"; }
