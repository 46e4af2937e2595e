#!/bin/bash
# make bench-trace: where the instructions of one allocation/free pair go.
#
#   bench-trace.sh KERNEL CASE [BOOT PARAMETERS]
#   make bench-trace TRACE_KERNEL=bench-on TRACE_CASE=page-order0 APPEND=...
#
# make bench counts instructions per pair; this says which functions they
# are spent in. It boots a bench kernel (built by make bench: the kernel,
# its initramfs and the bench module's overlay) under QEMU with a gdb stub,
# loads the bench module for one case (few pairs, one run), lets the first
# TRACE_SKIP calls from the module go by (caches and per-CPU lists warm),
# then single-steps one pair: from the entry of the allocation function to
# the return of the free function to the module (scripts/bench-trace.py).
# Prints the instructions per function in the order they ran, and the
# totals: allocation, module code in between, free. The listing is kept in
# $BUILD/bench/trace-<kernel>-<case>[-<tag>].txt (TRACE_TAG names a variant,
# e.g. the boot parameters) for diffing two kernels.
. "$(dirname "$0")/lib.sh"

KERNEL=${1:?usage: bench-trace.sh KERNEL CASE [BOOT PARAMETERS]}
CASE=${2:?case: kmalloc-8-240 kmem_cache-64 page-order0 page-order2 vmalloc-64k kmalloc-account-8-240}
shift 2
PARAMS=$*
BENCH=$BUILD/bench
OUT=$(out_dir "$KERNEL")
SKIP=${TRACE_SKIP:-100}
TAG=${TRACE_TAG:+-$TRACE_TAG}
LISTING=$BENCH/trace-$KERNEL-$CASE$TAG.txt
PCS=$BENCH/trace-$KERNEL-$CASE$TAG.pcs

[[ -f $OUT/vmlinux && -d $BENCH/overlay-$KERNEL ]] ||
	die "no bench kernel $KERNEL: run make bench with a row of it first"
command -v gdb >/dev/null || as_root apt-get install -y -q gdb >>"$LOGS/apt.log" 2>&1 ||
	die "cannot install gdb"

# The functions each case calls from the module first: whichever exist in
# this kernel (names differ between 6.1, the series and 6.12).
case $CASE in
kmalloc*) names="__kmalloc __kmalloc_noprof" ;;
kmem_cache*) names="kmem_cache_alloc kmem_cache_alloc_noprof" ;;
page-*) names="alloc_pages alloc_pages_noprof __alloc_pages __alloc_pages_noprof" ;;
vmalloc*) names="vmalloc vmalloc_noprof" ;;
*) die "unknown case $CASE" ;;
esac
# Symbols of vmlinux: the entries now, the listing's function names later.
syms=$BENCH/trace-syms-$KERNEL
nm -n "$OUT/vmlinux" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' >"$syms"
entries=""
for n in $names; do
	a=$(awk -v n="$n" '$2 == n { print $1 }' "$syms" | head -n 1)
	if [[ -n $a ]]; then entries+=" $n=$a"; fi
done
[[ -n $entries ]] || die "$KERNEL has none of: $names"

# Enough pairs that the traced one comes after the warm-up.
script=$BENCH/trace-run-$KERNEL.sh
cat >"$script" <<EOF
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/bench && echo \$\$ >/sys/fs/cgroup/bench/cgroup.procs
insmod /opt/bench/alloc_tag_bench.ko only=$CASE pairs=$((SKIP * 2 + 60)) runs=1
EOF

port=$((20000 + RANDOM % 20000))
run=trace-$CASE$TAG
say "bench-trace: $KERNEL, $CASE, boot parameters '${PARAMS}' (gdb on port $port)"
QEMU_EXTRA="-gdb tcp:127.0.0.1:$port -S" APPEND="nokaslr $PARAMS" OVERLAY=$BENCH/overlay-$KERNEL \
	TIMEOUT=${TRACE_TIMEOUT:-600} INTERACTIVE=0 "$TOP/scripts/boot.sh" "$KERNEL" "$run" "$script" &
qemu=$!
sleep 2
rm -f "$PCS"
TRACE_PORT=$port TRACE_ENTRIES=$entries TRACE_SKIP=$SKIP TRACE_OUT=$PCS \
	timeout 900 gdb -batch -nx -x "$TOP/scripts/bench-trace.py" >"$LOGS/bench-trace-gdb.log" 2>&1 ||
	warn "gdb: $(tail -n 3 "$LOGS/bench-trace-gdb.log")"
wait "$qemu" || true
[[ -s $PCS ]] || die "no trace (logs: $(show_path "$LOGS/bench-trace-gdb.log"), $(show_path "$LOGS/$KERNEL-$run.log"))"

# Symbolize: function of each address from vmlinux's symbol table; module
# code is "[module]".
python3 - "$syms" "$PCS" <<'EOF' | tee "$LISTING"
import bisect, sys
syms = [(int(a, 16), n) for a, n in (l.split() for l in open(sys.argv[1]))]
addrs = [a for a, _ in syms]
order, count, phase_total = [], {}, [0, 0, 0]
for line in open(sys.argv[2]):
    pc, phase = line.split()
    pc, phase = int(pc, 16), int(phase)
    if pc >= 0xffffffffa0000000:
        fn = "[module]"
    else:
        i = bisect.bisect_right(addrs, pc) - 1
        fn = syms[i][1] if i >= 0 else "?"
    key = (phase, fn)
    if key not in count:
        order.append(key)
        count[key] = 0
    count[key] += 1
    phase_total[phase] += 1
names = ["alloc", "between", "free"]
for key in order:
    print("%-8s %-44s %5d" % (names[key[0]], key[1], count[key]))
print("total    alloc %d, between %d, free %d: %d instructions" %
      (phase_total[0], phase_total[1], phase_total[2], sum(phase_total)))
EOF
