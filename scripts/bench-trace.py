# gdb script of scripts/bench-trace.sh: trace one allocation/free pair of the
# bench module instruction by instruction, through QEMU's gdb stub.
#
# Run as: gdb -batch -nx -ex 'py ...' -x bench-trace.py, with the
# environment of bench-trace.sh: TRACE_PORT (the stub), TRACE_ENTRIES (names
# of the kernel functions the case calls first, "name=addr" pairs), TRACE_SKIP
# (calls to let go by: warm caches and per-CPU lists), TRACE_OUT (where the
# program counters go, one hex address a line, each with its phase).
#
# The pair starts at the entry of the allocation function called from the
# module (a hardware breakpoint: the kernel is not mapped when QEMU starts),
# and ends when the free function returns to the module. QEMU single-steps
# with interrupts and timers masked, so the trace is the code of the pair
# and nothing else. The caller's own instructions before the allocation call
# (alloc_hooks() saving the tag) are not in it: they are in the module.
import os

import gdb

MODULE_LO = 0xffffffffa0000000  # module mapping (no KASLR: nokaslr)
MODULE_HI = 0xffffffffff000000
MAX_STEPS = 100000


def u64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffffffffffff


def in_module(pc):
    return MODULE_LO <= pc < MODULE_HI


def main():
    port = os.environ["TRACE_PORT"]
    entries = [e.split("=") for e in os.environ["TRACE_ENTRIES"].split()]
    skip = int(os.environ.get("TRACE_SKIP", "100"))
    out = os.environ["TRACE_OUT"]

    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("target remote 127.0.0.1:%s" % port)
    for _, addr in entries:
        gdb.execute("hbreak *0x%x" % int(addr, 16), to_string=True)

    hits = 0
    while True:
        gdb.execute("continue", to_string=True)
        pc = reg("pc")
        ret = u64(reg("rsp"))
        if not in_module(ret):
            continue
        hits += 1
        if hits > skip:
            break
    gdb.execute("delete", to_string=True)

    # phase 0: allocation; 1: module code between; 2: free
    phase, steps = 0, 0
    with open(out, "w") as f:
        while steps < MAX_STEPS:
            f.write("%x %d\n" % (pc, phase))
            steps += 1
            gdb.execute("stepi", to_string=True)
            pc = reg("pc")
            if phase == 0 and in_module(pc):
                phase = 1
            elif phase == 1 and not in_module(pc):
                phase = 2
            elif phase == 2 and in_module(pc):
                break
    gdb.execute("kill", to_string=True)
    if steps >= MAX_STEPS:
        raise gdb.GdbError("no end of the pair after %d steps" % steps)


main()
