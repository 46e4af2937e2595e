#!/bin/bash
# The report's rule for skips (scripts/report.py): in a config with
# profiling a skipped test fails, unless the config allows that skip with
# "# allow-skip: REGEX" (matched against "name # SKIP reason"); in a config
# without profiling a skip stays a skip; a malformed REGEX fails. Builds a
# boot log and a manifest by hand and reads the summary. Prints KTAP;
# exits 0 iff every case passed.
#
#   tests/harness/report-skips.sh TOP
set -u
TOP=${1:?usage: report-skips.sh TOP}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

cat >"$tmp/boot.log" <<'EOF'
[    0.000000] Linux version 6.1.0 (report-skips)
ALLOCPROF-KSFT-BEGIN alloc_tag/fam
TAP version 13
1..3
ok 1 first_case
ok 2 # SKIP numa_migrate: no NUMA node 1 (CONFIG_NUMA, two nodes)
ok 3 # SKIP hugetlb_pool: hugetlb pages of 512 MiB do not fit this guest
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:2 error:0
ALLOCPROF-KSFT-END alloc_tag/fam 0
ALLOCPROF-EXIT 0
EOF
printf 'qemu_status=0\ntimed_out=0\nguest_exit=0\n' >"$tmp/boot.status"

# summary FEATURE PATTERN...: the report's lines for config "c" whose
# feature is FEATURE (profiling or none), allowing the skips PATTERN.
summary() {
	local feature=$1 p
	shift
	{
		printf 'c\tbuild\t/dev/null\tok\n'
		printf 'c\tfeature\t%s\n' "$feature"
		for p in "$@"; do printf 'c\tallow-skip\t%s\n' "$p"; done
		printf 'c\tmain\tmain\t%s\t%s\t0\t-\n' "$tmp/boot.log" "$tmp/boot.status"
	} >"$tmp/manifest.tsv"
	python3 "$TOP/scripts/report.py" summary "$tmp/manifest.tsv" "$tmp/summary.txt" >/dev/null
	cat "$tmp/summary.txt"
}

# case NAME WANT GOT: GOT must contain every line of WANT.
case_of() {
	local name=$1 want=$2 got=$3 line ok=1
	n=$((n + 1))
	while IFS= read -r line; do
		grep -qxF "$line" <<<"$got" || ok=0
	done <<<"$want"
	if ((ok)); then
		echo "ok $n $name"
	else
		echo "# wanted:"
		sed 's/^/#   /' <<<"$want"
		echo "# the report said:"
		sed 's/^/#   /' <<<"$got"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..5"
case_of profiling_skip_fails "c: ksft.alloc_tag.fam.2: FAIL
c: ksft.alloc_tag.fam.3: FAIL
3 passed, 2 failed, 0 skipped" "$(summary profiling)"
case_of allowed_skip_stays_a_skip "c: ksft.alloc_tag.fam.2: SKIP
c: ksft.alloc_tag.fam.3: FAIL" "$(summary profiling 'numa_migrate: no NUMA node 1')"
case_of allowance_matches_the_reason_not_any_skip "c: ksft.alloc_tag.fam.2: FAIL
c: ksft.alloc_tag.fam.3: FAIL" "$(summary profiling 'numa_migrate: no KSM')"
case_of skip_without_profiling_is_a_skip "c: ksft.alloc_tag.fam.2: SKIP
c: ksft.alloc_tag.fam.3: SKIP" "$(summary none)"
case_of malformed_allowance_fails "c: allow-skip: FAIL" "$(summary profiling '(')"
echo "# $failed of $n failed"
[ $failed = 0 ]
