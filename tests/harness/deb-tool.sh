#!/bin/bash
# make deb's tool package (scripts/deb.sh tool): it builds from the tree,
# lintian reports no error, it holds the tool, its manual page, the timer
# and the service; the timer's script writes valid Prometheus metrics
# atomically, readable by the node exporter, and on a failure keeps the old
# file and leaves no temporary one. Prints KTAP; exits 0 iff every case
# passed.
#
#   tests/harness/deb-tool.sh TOP
set -u
TOP=${1:?usage: deb-tool.sh TOP}
BUILD=${BUILD:-$TOP/build}
n=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

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

echo "TAP version 13"
echo "1..11"
status=0
BUILD=$BUILD "$TOP/scripts/deb.sh" tool >"$TMP/deb.log" 2>&1 || status=$?
sed 's/^/# /' "$TMP/deb.log" | tail -5
check builds_lintian_clean 0 "$status"
deb=$(head -n1 "$BUILD/deb/packages" 2>/dev/null)
check package_listed 1 "$([[ -f $deb && $deb == *allocinfo_*.deb ]] && echo 1 || echo 0)"
root=$TMP/root
dpkg-deb -x "$deb" "$root" 2>/dev/null
for f in usr/bin/allocinfo usr/share/man/man1/allocinfo.1.gz \
	lib/systemd/system/allocinfo-prometheus.service \
	lib/systemd/system/allocinfo-prometheus.timer; do
	check "has_${f##*/}" 1 "$([[ -s $root/$f ]] && echo 1 || echo 0)"
done
check tool_runs 0 "$("$root/usr/bin/allocinfo" --help >/dev/null 2>&1; echo $?)"

# The timer's script, with an allocinfo that reads a saved profile.
script=$root/usr/libexec/allocinfo/allocinfo-prometheus
mkdir -p "$TMP/bin" "$TMP/textfile"
cat >"$TMP/profile" <<'EOF'
allocinfo - version: 2.0
#     <size>  <calls> <tag info>
       12288        3 drivers/foo/bar.c:55 [foo] func:foo_probe
        4096        1 mm/percpu-vm.c:97 func:pcpu_alloc_pages
EOF
printf '#!/bin/sh\nexec %q "$@" -f %q\n' "$root/usr/bin/allocinfo" "$TMP/profile" >"$TMP/bin/allocinfo"
chmod 755 "$TMP/bin/allocinfo"
PATH=$TMP/bin:$PATH "$script" "$TMP/textfile" 2>"$TMP/err"
prom=$TMP/textfile/allocinfo.prom
got=$(grep -c '^allocinfo_bytes{file="drivers/foo/bar.c",line="55",function="foo_probe",module="foo"} 12288$' "$prom" 2>/dev/null)
check script_writes_metrics 1 "$got"
check script_file_world_readable 644 "$(stat -c %a "$prom" 2>/dev/null)"
if command -v promtool >/dev/null; then
	promtool check metrics <"$prom" >"$TMP/promtool" 2>&1
	check promtool_accepts 0 "$?"
else
	echo "ok $((++n)) promtool_accepts # SKIP no promtool"
fi
# A failing tool: the old file stays, no temporary file is left.
printf '#!/bin/sh\necho broken >&2\nexit 1\n' >"$TMP/bin/allocinfo"
before=$(sha256sum <"$prom")
PATH=$TMP/bin:$PATH "$script" "$TMP/textfile" 2>/dev/null
st=$?
after=$(sha256sum <"$prom")
left=$(find "$TMP/textfile" -type f | wc -l)
check failure_keeps_old_file "1 1 1" "$((st != 0)) $([[ $before == "$after" ]] && echo 1 || echo 0) $left"
exit $((failed > 0))
