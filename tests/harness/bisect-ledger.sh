#!/bin/bash
# The ledger of make bisect-check (scripts/bisect-ledger.sh): a step is
# known only for the tree and the inputs it passed with, once, and
# BISECT_FORCE=1 forgets it. Runs on a copy of the inputs. Prints KTAP;
# exits 0 iff every case passed.
#
#   tests/harness/bisect-ledger.sh TOP
set -u
REAL=${1:?usage: bisect-ledger.sh TOP}
. "$REAL/scripts/lib.sh"
set +e
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/tests/modules" "$TMP/scripts/guest"
cp -r "$REAL/configs" "$TMP/"
cp -r "$REAL/tests/modules/unload" "$TMP/tests/modules/"
cp "$REAL/scripts/guest/init" "$REAL/scripts/guest/allocprof-audit" "$TMP/scripts/guest/"
TOP=$TMP LEDGER=$TMP/passed.tsv
. "$REAL/scripts/bisect-ledger.sh"
n=0 failed=0

# check NAME EXPECT CMD...: CMD succeeds (EXPECT=yes) or fails (no).
check() {
	local name=$1 expect=$2 got=no
	shift 2
	"$@" && got=yes
	n=$((n + 1))
	if [[ $got == "$expect" ]]; then
		echo "ok $n $name"
	else
		echo "# expected '$expect', got '$got'; ledger:"
		sed 's/^/#   /' "$LEDGER" 2>/dev/null
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}
lines() { [[ $(grep -vc '^#' "$LEDGER") == "$1" ]]; }

T1=1111111111111111111111111111111111111111
T2=2222222222222222222222222222222222222222
echo "TAP version 13"
echo "1..11"
check "an empty ledger knows nothing" no ledger_has $T1 unload
ledger_add $T1 unload 0001-x.patch
check "a step that passed is known" yes ledger_has $T1 unload
check "another tree is not" no ledger_has $T2 unload
check "another step at that tree is not" no ledger_has $T1 build:profiling
ledger_add $T1 build:profiling 0001-x.patch
check "a build step is known for its config" yes ledger_has $T1 build:profiling
check "but not for another config" no ledger_has $T1 build:debug
ledger_add $T1 unload 0001-x.patch
check "a step passed twice is recorded once" yes lines 2
BISECT_FORCE=1 check "BISECT_FORCE=1 forgets every step" no ledger_has $T1 unload
BISECT_FORCE=1 ledger_add $T1 unload 0001-x.patch
check "and recording a step again under it adds nothing" yes lines 2
echo "# a change" >>"$TMP/tests/modules/unload/Kbuild"
check "a change to the unload modules forgets the unload step" no ledger_has $T1 unload
echo "# a change" >>"$TMP/configs/profiling.config"
check "a change to a config fragment forgets its builds" no ledger_has $T1 build:profiling
echo "# $failed of $n failed"
[ $failed = 0 ]
