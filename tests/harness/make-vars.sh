#!/bin/bash
# Variables given to make reach the scripts (and the guest) exactly as
# typed: make must not expand a '$' in CMD or APPEND. Prints KTAP; exits 0
# iff every case passed.
#
#   tests/harness/make-vars.sh TOP
set -u
TOP=${1:?usage: make-vars.sh TOP}
n=0
failed=0

# case NAME VAR VALUE: make print-vars VAR=VALUE must print VAR=VALUE.
case_of() {
	local name=$1 var=$2 value=$3 got
	n=$((n + 1))
	got=$(make -s -C "$TOP" --no-print-directory print-vars "$var=$value" | sed -n "s/^$var=//p")
	if [[ $got == "$value" ]]; then
		echo "ok $n $name"
	else
		echo "# $var given as: $value"
		echo "# the scripts got: $got"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..5"
case_of cmd_command_substitution CMD 'v=$(cat /proc/version); echo "$v"'
case_of cmd_shell_variable CMD 'for f in a b; do echo $f ${f}x; done'
case_of cmd_double_dollar CMD 'echo $$ $$$$'
case_of cmd_backquotes_and_quotes CMD "echo \`id -u\` 'single' \"double\" \\\\"
case_of append_dollar APPEND 'sysctl.vm.mem_profiling=1 x=$(y) z=$$'
echo "# $failed of $n failed"
[ $failed = 0 ]
