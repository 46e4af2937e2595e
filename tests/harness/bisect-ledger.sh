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
echo "1..14"
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
# Build keys: a repository whose second commit changes only a selftest
# and documentation, the third a kernel file.
G=$TMP/git
mkdir -p "$G/mm" "$G/tools/testing/selftests/x" "$G/Documentation" "$G/tools/objtool"
git -C "$G" init -q
echo a >"$G/mm/a.c"; echo t >"$G/tools/testing/selftests/x/t.c"
echo d >"$G/Documentation/d.rst"; echo o >"$G/tools/objtool/o.c"
gc() { git -C "$G" add -A && git -C "$G" -c user.name=t -c user.email=t@t commit -qm "$1"; }
gc one
echo t2 >"$G/tools/testing/selftests/x/t.c"; echo d2 >"$G/Documentation/d.rst"; gc two
echo o2 >"$G/tools/objtool/o.c"; gc three
k1=$(build_key "$G" HEAD~2) k2=$(build_key "$G" HEAD~1) k3=$(build_key "$G" HEAD)
check "a selftest and documentation change keeps the build key" yes test "$k1" = "$k2"
check "a change to a file the build reads (tools/objtool) changes it" no test "$k2" = "$k3"
check "a build key is 40 hex digits" yes eval '[[ $k1 =~ ^[0-9a-f]{40}$ ]]'
echo "# $failed of $n failed"
[ $failed = 0 ]
