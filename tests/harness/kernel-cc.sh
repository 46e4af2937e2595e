#!/bin/bash
# The compiler kernel builds use (scripts/lib.sh kernel_cc): ccache by
# default when it is installed, plain gcc with CCACHE=0 (what .ci/run sets)
# or without ccache; and make passes CCACHE on to the scripts. Prints KTAP;
# exits 0 iff every case passed.
#
#   tests/harness/kernel-cc.sh TOP
set -u
TOP=${1:?usage: kernel-cc.sh TOP}
n=0
failed=0

check() {
	local name=$1 want=$2 got=$3
	n=$((n + 1))
	if [[ $got == "$want" ]]; then
		echo "ok $n $name"
	else
		echo "# wanted '$want', got '$got'"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

cc_with() { env "$@" bash -c '. "$1/scripts/lib.sh"; kernel_cc' _ "$TOP"; }

echo "TAP version 13"
echo "1..4"
if command -v ccache >/dev/null; then default="ccache gcc"; else default=gcc; fi
check default_ccache_when_installed "$default" "$(cc_with -u CCACHE)"
check ccache_0_plain_gcc gcc "$(cc_with CCACHE=0)"
check ccache_1_same_as_default "$default" "$(cc_with CCACHE=1)"
# make exports CCACHE to the scripts (the Makefile's export list).
got=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$TOP/Makefile" | grep -cE '^export .*[[:space:]]CCACHE([[:space:]]|$)')
check make_exports_ccache 1 "$got"
exit $((failed > 0))
