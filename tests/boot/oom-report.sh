#!/bin/sh
# CONFIGS: profiling debug
# LONG: debug
# TIMEOUT: 900
# ALLOW-LOG: Call Trace:
#
# The kernel's memory report names the largest allocation sites: once for
# sysrq-m, once for a real OOM kill (a process that grows until the OOM
# killer takes it; its oom_score_adj makes sure it is the one). Each report
# must list 10 sites, largest first, each one a line of /proc/allocinfo.
# sysrq-m's must be the 10 largest of /proc/allocinfo read just before
# (give or take neighbours that swap places in between: its top 8 among
# the report's sites, the report's among its top 12); the OOM report's
# first site must hold at least half of the memory, as the victim did.
# The OOM report prints a stack trace (hence ALLOW-LOG); any other kernel
# report still fails the test.

. /etc/allocprof/ktap.sh

HDR='alloc_tag: Largest allocation sites'
SITES=/tmp/oom-sites

# The report lines after the last header in dmesg, without the prefix:
# "<size> <unit> <site>".
last_report() {
	dmesg | sed 's/^\[[ 0-9.]*\] //' | awk -v hdr="$HDR" '
		index($0, hdr) == 1 { n = 0; inside = 1; next }
		inside && /^alloc_tag: / && / func:/ { l[n++] = substr($0, 12); next }
		inside { inside = 0 }
		END { for (i = 0; i < n; i++) print l[i] }'
}

# Check the report: 10 sites, sizes not increasing, each site known.
report_ok() {
	last_report >"$SITES"
	cat "$SITES"
	n=$(wc -l <"$SITES")
	[ "$n" = 10 ] || { echo "$n sites in the report, expected 10"; return 1; }
	awk '
		function bytes(v, u) {
			if (u == "B") return v
			if (u == "KiB") return v * 1024
			if (u == "MiB") return v * 1048576
			if (u == "GiB") return v * 1073741824
			return -1
		}
		{
			b = bytes($1, $2)
			if (b <= 0) { print "bad size: " $0; bad = 1 }
			if (NR > 1 && b > prev * 1.01) { print "not sorted: " $0; bad = 1 }
			prev = b
		}
		END { exit bad }' "$SITES" || return 1
	sed 's/^ *[0-9.]* [KMGTi]*B //' "$SITES" | while read -r site; do
		grep -qF " $site" /proc/allocinfo || { echo "not in /proc/allocinfo: $site"; exit 1; }
	done
}

# The sites of /proc/allocinfo by decreasing bytes (the first $1).
top_sites() {
	tail -n +3 /proc/allocinfo | sort -k1,1nr | head -n "$1" |
		sed 's/^ *-*[0-9]* *-*[0-9]* //'
}

# The sites of the last report, largest first.
report_sites() {
	sed 's/^ *[0-9.]* [KMGTi]*B //' "$SITES"
}

# Every line of file $1 is a line of file $2.
all_in() {
	while read -r site; do
		grep -qxF "$site" "$2" || { echo "not in $3: $site"; return 1; }
	done <"$1"
}

sysrq_report() {
	echo 1 >/proc/sys/kernel/sysrq
	top_sites 12 >/tmp/top12
	head -n 8 /tmp/top12 >/tmp/top8
	echo m >/proc/sysrq-trigger
	dmesg | grep -q "$HDR" || { echo "no '$HDR' in dmesg"; return 1; }
	report_ok || return 1
	report_sites >/tmp/reported
	echo "/proc/allocinfo just before, largest first:"
	cat /tmp/top12
	all_in /tmp/top8 /tmp/reported "the report" &&
		all_in /tmp/reported /tmp/top12 "the 12 largest sites"
}

# The OOM report's largest site holds half of the memory or more.
oom_top_is_the_victim() {
	last_report >"$SITES"
	total=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	head -n 1 "$SITES"
	head -n 1 "$SITES" | awk -v total="$total" '
		{
			v = $1
			if ($2 == "KiB") v *= 1024
			if ($2 == "MiB") v *= 1048576
			if ($2 == "GiB") v *= 1073741824
			print v " of " total " bytes"
			exit !(v * 2 >= total)
		}'
}

# A process that grows until the OOM killer kills it: busybox tail keeps
# all of a file without newlines in memory.
oom_kill() {
	echo 1 >/proc/sys/vm/overcommit_memory
	dmesg -c >/dev/null
	sh -c 'echo 1000 >/proc/self/oom_score_adj; exec tail /dev/zero' >/dev/null 2>&1
	echo "the hog exited with status $?"
	echo 0 >/proc/sys/vm/overcommit_memory
	dmesg | grep -q 'Out of memory: Killed process [0-9]* (tail)' ||
		{ echo "no OOM kill of tail in dmesg"; dmesg | tail -n 20; return 1; }
	dmesg | grep -q "$HDR" || { echo "no '$HDR' in the OOM report"; return 1; }
}

if [ ! -r /proc/allocinfo ]; then
	ktap_plan 1
	ktap_fail "oom report: no /proc/allocinfo"
	exit 0
fi
ktap_plan 4
ktap_check "sysrq-m prints the 10 largest sites" sysrq_report
ktap_check "an OOM kill prints the largest sites" oom_kill
ktap_check "the OOM report has the 10 largest sites" report_ok
ktap_check "the OOM report's largest site is the victim's memory" oom_top_is_the_victim
