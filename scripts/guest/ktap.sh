# KTAP helpers for boot tests (busybox sh). Source it:
#     . /etc/allocprof/ktap.sh
#     ktap_plan 3
#     ktap_check "meminfo readable" cat /proc/meminfo
#     ktap_ok "something worked"
#     ktap_skip "modules" "no test module in this config"
# Prints "TAP version 13", "1..N", "ok N - desc", "not ok N - desc",
# "ok N - desc # SKIP reason"; the harness parses these from the serial log.

KTAP_COUNT=0

ktap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

ktap_diag() {
	echo "# $*"
}

ktap_ok() {
	KTAP_COUNT=$((KTAP_COUNT + 1))
	echo "ok $KTAP_COUNT - $*"
}

ktap_fail() {
	KTAP_COUNT=$((KTAP_COUNT + 1))
	echo "not ok $KTAP_COUNT - $*"
}

# ktap_skip DESC REASON...
ktap_skip() {
	_ktap_desc=$1
	shift
	KTAP_COUNT=$((KTAP_COUNT + 1))
	echo "ok $KTAP_COUNT - $_ktap_desc # SKIP $*"
}

# ktap_check DESC COMMAND [ARGS...]: ok when COMMAND exits 0. The output of
# a failing command is shown as KTAP diagnostic lines.
ktap_check() {
	_ktap_desc=$1
	shift
	_ktap_out=/tmp/.ktap_check.$$
	if "$@" >"$_ktap_out" 2>&1; then
		ktap_ok "$_ktap_desc"
	else
		_ktap_status=$?
		ktap_fail "$_ktap_desc"
		ktap_diag "command failed with status $_ktap_status: $*"
		tail -n 20 "$_ktap_out" | sed 's/^/#   /'
	fi
	rm -f "$_ktap_out"
}
