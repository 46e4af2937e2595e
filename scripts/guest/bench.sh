#!/bin/sh
# Guest side of "make bench" (sourced by the run script that
# scripts/bench.sh writes for each row, which sets BENCH_ROW, BENCH_SETUP
# and BENCH_MODE first). Prints machine readable lines on the console:
#   BENCH-MEM <key> <kB>         from /proc/meminfo, right after boot
#   BENCH-PAGE-EXT <bytes>       page_ext memory (dmesg), when there is any
#   BENCH-TAGS <n>               lines of /proc/allocinfo (tags), if any
#   BENCH-VECTORS <bytes> <n>    slab object vector memory (allocinfo line)
#   BENCH-RESULT <case> <ns>     the bench module's results (BENCH_MODE=bench)
#   BENCH-VECTORS-OBJ <bytes> <n> vectors of the slabs of n accounted objects
#   BENCH-READ <what> <ns> ...   reads of the profile (BENCH_MODE=read,
#                                bench/readbench.c)
#   BENCH-WORK <workload> <ns>   one run of a real workload (BENCH_MODE=work)
#   BENCH-BPF <what> ...         the BPF peer's loader (bench/bpf/allocbpf.c):
#                                maps, drops, top sites (BENCH_SETUP=bpf*)
#   BENCH-BPF-MEMCG <kernel> <current>  the memory of the loader's memcg
#                                (its maps and programs), bytes
#   BENCH-ERROR <text>           something went wrong
# Under QEMU -icount shift=0 a nanosecond is one instruction.

echo "BENCH-ROW ${BENCH_ROW:-?} mode ${BENCH_MODE:-bench} setup ${BENCH_SETUP:-none}"
echo "BENCH-CMDLINE $(cat /proc/cmdline)"

awk '/^(MemTotal|MemFree|Slab|SUnreclaim|Percpu):/ { sub(":", "", $1); print "BENCH-MEM", $1, $2 }' /proc/meminfo
dmesg | sed -n 's/.*allocated \([0-9]*\) bytes of page_ext.*/BENCH-PAGE-EXT \1/p'
if [ -r /proc/allocinfo ]; then
	echo "BENCH-TAGS $(grep -cv '^allocinfo\|^#' /proc/allocinfo)"
	# The memory of the slab object vectors: ours are charged to one line
	# in mm/slab_obj_ext.c, upstream's to alloc_slab_obj_exts().
	awk '/slab_obj_exts_tag|func:alloc_slab_obj_exts/ { b += $1; n += $2 }
	     END { print "BENCH-VECTORS", b + 0, n + 0 }' /proc/allocinfo
fi

case ${BENCH_SETUP:-none} in
none) ;;
ftrace)
	# "Could ftrace do it?": a histogram keyed by call site on every
	# kmalloc, and by call chain on every page allocation (the page event
	# has no call site field).
	t=/sys/kernel/tracing
	mount -t tracefs nodev $t 2>/dev/null
	echo 'hist:keys=call_site.sym:vals=bytes_req,bytes_alloc' \
		>$t/events/kmem/kmalloc/trigger ||
		echo "BENCH-ERROR cannot set the kmalloc hist trigger"
	echo 'hist:keys=stacktrace:vals=hitcount' \
		>$t/events/kmem/mm_page_alloc/trigger ||
		echo "BENCH-ERROR cannot set the mm_page_alloc hist trigger"
	;;
bpf | bpf-stack | bpf-full)
	# "Why not BPF?": bench/bpf/allocbpf.c, live per-site sums kept by BPF
	# programs on the kmem tracepoints, attributed by call_site (bpf) or
	# by call chain (bpf-stack); bpf-full: by call_site with an object map
	# of 64 entries, full before the bench starts (what happens when the
	# map fills up). It runs in a memcg of its own, which its maps are
	# charged to (their memory), and stays attached while the bench
	# module runs; afterwards it prints what it holds.
	case $BENCH_SETUP in
	bpf) bpf_args="-m call_site" ;;
	bpf-stack) bpf_args="-m stack" ;;
	bpf-full) bpf_args="-m call_site -n 64" ;;
	esac
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/allocbpf
	rm -f /tmp/allocbpf.ready
	sh -c 'echo $$ >/sys/fs/cgroup/allocbpf/cgroup.procs && exec "$@"' allocbpf \
		/opt/bench/allocbpf $bpf_args -r /tmp/allocbpf.ready \
		>/tmp/allocbpf.out 2>/tmp/allocbpf.err &
	bpf_pid=$!
	i=0
	while [ ! -e /tmp/allocbpf.ready ] && kill -0 $bpf_pid 2>/dev/null && [ $i -lt 300 ]; do
		sleep 1
		i=$((i + 1))
	done
	if [ -e /tmp/allocbpf.ready ]; then
		cat /tmp/allocbpf.out
		echo "BENCH-BPF-MEMCG $(awk '$1 == "kernel" { print $2 }' /sys/fs/cgroup/allocbpf/memory.stat) $(cat /sys/fs/cgroup/allocbpf/memory.current)"
	else
		echo "BENCH-ERROR the BPF loader did not attach"
		sed 's/^BENCH-BPF error/BENCH-ERROR allocbpf:/' /tmp/allocbpf.out
		sed 's/^/allocbpf: /' /tmp/allocbpf.err
		exit 1
	fi
	;;
capture | capture-other)
	# Context capture: bitmap_alloc()'s site (the bench's bitmap-64 case),
	# or bitmap_alloc_node()'s, which nothing calls here: the key is on
	# but no case is recorded.
	case $BENCH_SETUP in
	capture) f=bitmap_alloc ;;
	*) f=bitmap_alloc_node ;;
	esac
	site=$(awk -v f="func:$f" '$NF == f && NF == 4 { print $3; exit }' /proc/allocinfo)
	echo "BENCH-CAPTURE $site"
	[ -n "$site" ] && echo "$site" >/sys/kernel/debug/allocinfo/capture ||
		echo "BENCH-ERROR cannot capture $f's site"
	;;
*)
	echo "BENCH-ERROR unknown setup ${BENCH_SETUP}"
	;;
esac

if [ "${BENCH_MODE:-bench}" = read ]; then
	echo "BENCH-READ cpus $(cat /sys/devices/system/cpu/possible)"
	# A few thousand sites, as on a distribution kernel with its modules.
	if [ -f /opt/bench/readbench_sites.ko ]; then
		if insmod /opt/bench/readbench_sites.ko; then
			echo "BENCH-READ extra-sites loaded"
		elif [ ! -e /proc/allocinfo_cumulative ]; then
			# Upstream 6.12: a module's tag counters are one per-CPU
			# allocation, which cannot exceed 32 KiB (2048 sites).
			echo "BENCH-READ extra-sites refused"
		else
			echo "BENCH-ERROR insmod readbench_sites failed"
		fi
	fi
	/opt/bench/readbench || echo "BENCH-ERROR readbench failed"
	exit 0
fi
case ${BENCH_MODE:-bench} in
bench | work) ;;
*) exit 0 ;;
esac

# The __GFP_ACCOUNT case is charged to the loading task's memcg (a child
# cgroup with the memory controller: the root memcg charges nothing).
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/bench
grep -qw memory /sys/fs/cgroup/bench/cgroup.controllers ||
	echo "BENCH-ERROR no memory controller in the bench cgroup"
echo $$ >/sys/fs/cgroup/bench/cgroup.procs ||
	echo "BENCH-ERROR cannot enter the bench memcg"
echo "BENCH-CGROUP $(cat /proc/self/cgroup)"

# BENCH_MODE=work: the real workloads (bench/workloads.c, Debian's
# hackbench), each run once to warm up, then RUNS times (7; hackbench under
# CFS, whose runs vary most, 31), from the memcg, as a service runs on a
# production machine. sync before every run: no run starts with another
# one's dirty pages or journal to write (under icount a wait for the disk
# would jump the clock to the next timer).
work_case() {
	runs=$1
	name=$2
	shift 2
	# A first run, not counted, warms the caches the case needs.
	/opt/bench/workloads "$@" >/dev/null
	i=0
	while [ $i -lt "$runs" ]; do
		sync
		if ns=$(/opt/bench/workloads "$@"); then
			echo "BENCH-WORK $name $ns"
		else
			echo "BENCH-ERROR workload $name failed"
			return
		fi
		i=$((i + 1))
	done
}

if [ "${BENCH_MODE:-bench}" = work ]; then
	# hackbench under CFS retires about 1,900 instructions per context
	# switch, and the number of switches is the scheduler's choice: 2,000
	# to 15,000 for the same kernel and command. Without address space
	# randomization each kernel keeps to one or two schedules of its own,
	# so this one runs with it, 31 times, for a median over schedules.
	# The ratio it gives is the scheduler's before it is profiling's.
	work_case 31 hackbench-cfs exec /opt/bench/hackbench -p -g 2 -f 10 -l 100
	echo 0 >/proc/sys/kernel/randomize_va_space ||
		echo "BENCH-ERROR cannot switch address space randomization off"
	# The measure: the same hackbench under SCHED_FIFO (workloads.c's
	# exec-fifo), which takes the same schedule (about 125 switches) on
	# every run of every kernel. It is all pipe traffic and forks, the
	# work allocation profiling is charged on, no longer diluted by the
	# scheduler's: its ratio bounds what the CFS run pays. The RT
	# throttle (0.95 s of every second) is lifted: a FIFO task that
	# stopped for it would hand the CPU to whatever CFS had waiting.
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us ||
		echo "BENCH-ERROR cannot lift the RT throttle"
	work_case 7 hackbench exec-fifo /opt/bench/hackbench -p -g 2 -f 10 -l 100
	grep -q ' /mnt/scratch ext4 ' /proc/mounts ||
		echo "BENCH-ERROR no ext4 scratch disk on /mnt/scratch"
	[ -d /sys/class/net/lo ] || echo "BENCH-ERROR no loopback network"
	mkdir -p /mnt/scratch/work /tmp/work
	# hackbench: 2 groups of 10 sender and 10 receiver processes, each
	# sender writes 100 messages of 100 bytes to each receiver of its
	# group through pipes. fork-exec: 200 times fork, exec of a static
	# program, exit, wait. tmpfs/ext4: 2000 files created, written (12
	# KiB), closed and unlinked. tcp: 40 loopback connections with 50
	# request (64 B) / response (512 B) exchanges each. mix: 2000 rounds
	# of the mix in bench/workloads.c (long enough that the periodic work
	# of the kernel, a few million instructions at a time, evens out).
	work_case 7 fork-exec fork 200
	work_case 7 tmpfs files /tmp/work 2000
	work_case 7 ext4 files /mnt/scratch/work 2000
	work_case 7 tcp tcp 40 50
	work_case 7 mix mix 2000
	echo "BENCH-WORK-DONE"
	exit 0
fi

if ! insmod /opt/bench/alloc_tag_bench.ko ${BENCH_MODPARAMS:-}; then
	echo "BENCH-ERROR insmod alloc_tag_bench failed"
	exit 1
fi
dmesg | sed -n 's/.*alloc_tag_bench: \([^ ]*\) \([0-9.]*\) ns (.*/BENCH-RESULT \1 \2/p'
dmesg | sed -n 's/.*alloc_tag_bench: vectors \([0-9]*\) bytes for \([0-9]*\) objects.*/BENCH-VECTORS-OBJ \1 \2/p'
dmesg | grep -q 'alloc_tag_bench: done' || echo "BENCH-ERROR the bench did not finish"
echo "BENCH-MEMCG-KMEM $(awk '$1 == "kernel" { print $2 }' /sys/fs/cgroup/bench/memory.stat)"
case ${BENCH_SETUP:-none} in
capture*)
	sed 's/^/BENCH-CAPTURED /' /sys/kernel/debug/allocinfo/capture
	;;
esac
if [ "${BENCH_SETUP:-none}" = ftrace ]; then
	echo "BENCH-FTRACE-ENTRIES $(grep -c '^{' /sys/kernel/tracing/events/kmem/kmalloc/hist)"
fi
case ${BENCH_SETUP:-none} in
bpf*)
	# The module stays loaded: the loader resolves its call sites with
	# /proc/kallsyms.
	kill -TERM $bpf_pid
	wait $bpf_pid || echo "BENCH-ERROR the BPF loader failed"
	sed -e '/^BENCH-BPF attached/d' -e 's/^BENCH-BPF error/BENCH-ERROR allocbpf:/' \
		/tmp/allocbpf.out
	grep -q '^BENCH-BPF done' /tmp/allocbpf.out ||
		echo "BENCH-ERROR the BPF loader printed no results"
	sed 's/^/allocbpf: /' /tmp/allocbpf.err
	;;
esac
exit 0
