#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation fuzzer for tools/mm/allocinfo.

Usage: allocinfo-fuzz.py HARNESS WORKDIR COUNT SEED_FILE...

HARNESS is allocinfo-fuzz-harness.c built with the tool's source and the
sanitizers: a fork server that runs the tool's main() once per job (see
there why). Input i is made from a seed file with random.Random(SEED + i)
(byte flips, truncations, line duplication/deletion/swaps, digit changes,
huge numbers, long lines, NUL and invalid UTF-8 bytes, random junk), and
the tool runs one of several commands on it (top, top --json/--tree/
--prometheus/--sort tag/--cumulative, snapshot, diff, hot OLD NEW), on two
harnesses at a time. Every run must exit 0 or 2 without a signal or a
sanitizer report, a run that exits 2 must name a line of its input (or
say at line 1 that it is not the kind of profile the command needs), and
the JSON of a run that exits 0 must parse. Every 25th run also gets a LeakSanitizer check at exit. Prints one
line per failure (at most 20) and a summary; exits 0 iff nothing failed.
"""
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys

SEED = 0x5eed2026
HUGE = [b"99999999999999999999", b"18446744073709551615",
        b"9223372036854775807", b"-9223372036854775808",
        b"4611686018427387903", b"4611686018427387904", b"-0",
        b"00000000000000000000000000001", b"4294967295", b"4294967296",
        b"0", b"-1", b"1.5", b"1e9", b"0x10", b"+7"]
JUNK = [b"func:", b"accurate:no", b"accurate:yes", b"[mod]", b"[", b"]",
        b"[]", b":", b"::", b"a.c:", b":12", b"# time: 12.5",
        b"# time: x", b"allocinfo - version: 2.0", b"\t", b"  ", b"\x00",
        b"\xff\xfe", b"\xc3\x28", b"\xe2\x82", b"\"", b"\\", b"\r",
        b"key:value", b"func:a func:b", b"\xf0\x9f\x92\xa9", b"%s%n"]


def mutate(rng, data):
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        m = rng.randrange(11)
        if m == 0:                              # byte flips
            b = bytearray(b"\n".join(lines))
            for _ in range(rng.randint(1, 8) if b else 0):
                b[rng.randrange(len(b))] = rng.randrange(256)
            lines = bytes(b).split(b"\n")
        elif m == 1:                            # truncation
            b = b"\n".join(lines)
            lines = b[:rng.randint(0, len(b))].split(b"\n")
        elif m == 2 and lines:                  # duplicate lines
            for _ in range(rng.randint(1, 5)):
                i = rng.randrange(len(lines))
                lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif m == 3 and lines:                  # delete lines
            for _ in range(rng.randint(1, 5)):
                if lines:
                    del lines[rng.randrange(len(lines))]
        elif m == 4 and len(lines) > 1:         # swap lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif m == 5 and lines:                  # digit changes
            i = rng.randrange(len(lines))
            lines[i] = re.sub(rb"\d+", lambda mo: (
                rng.choice(HUGE) if rng.random() < 0.3 else
                str(rng.randrange(10 ** rng.randint(1, 25))).encode())
                if rng.random() < 0.5 else mo.group(0), lines[i])
        elif m == 6 and lines:                  # huge numbers
            i = rng.randrange(len(lines))
            f = lines[i].split()
            if f:
                f[rng.randrange(len(f))] = rng.choice(HUGE)
                lines[i] = b" ".join(f)
        elif m == 7 and lines:                  # long lines / tokens
            i = rng.randrange(len(lines))
            n = rng.choice([1000, 70000, 300000])
            tok = rng.choice([b"x", b"9", b"/", b" ", b"a:1 "]) * n
            lines[i] = lines[i] + b" " + tok if rng.random() < 0.5 else \
                tok + lines[i]
        elif m == 8:                            # random junk lines
            for _ in range(rng.randint(1, 3)):
                junk = b"".join(rng.choice(JUNK)
                                for _ in range(rng.randint(1, 6)))
                if rng.random() < 0.5:
                    junk = b"  4096  1 a/b.c:1 " + junk
                lines.insert(rng.randrange(len(lines) + 1), junk)
        elif m == 9 and lines:                  # token level junk
            i = rng.randrange(len(lines))
            f = lines[i].split(b" ")
            f.insert(rng.randrange(len(f) + 1), rng.choice(JUNK))
            lines[i] = b" ".join(f)
        elif m == 10 and lines:                 # header changes
            lines[0] = rng.choice([
                b"allocinfo - version: 1.0", b"allocinfo - version: 2.0",
                b"allocinfo - version: 2.99", b"allocinfo - version: 3.0",
                b"allocinfo - version: 1", b"allocinfo - version: .1",
                b"allocinfo_cumulative - version: 1.0",
                b"allocinfo_cumulative - version: 2.0",
                b"allocinfo - version:  1.0", b"allocinfo - version: 1.0 ",
                b"", b"# allocinfo"])
    out = b"\n".join(lines)
    if rng.random() < 0.1:
        out = out.rstrip(b"\n")
    return out


COMMANDS = [
    (["top"], False), (["top", "-n", "0", "--json"], True),
    (["top", "--tree", "2", "--json"], True), (["top", "--tree", "1"], False),
    (["top", "--prometheus"], False),
    (["top", "--sort", "calls", "--file", "*/*", "--min", "1K"], False),
    (["snapshot"], False), (["snapshot", "--json"], True),
    (["diff", "@SEED", "@INPUT", "--all", "--json"], True),
    (["diff", "@INPUT", "@SEED", "-n", "0"], False),
    (["top", "-s", "tag", "--tree", "1"], False),
    (["top", "--cumulative", "--json", "-n", "0"], True),
    (["diff", "@SEED", "@INPUT", "-s", "tag", "--json"], True),
    (["hot", "@SEED", "@INPUT", "-i", "1", "-n", "0"], False),
    (["hot", "@INPUT", "@SEED", "-i", "0.5", "--json", "-s", "bytes"], True),
]

# What an exit status 2 must say: the line of the input that is wrong, or
# that a file is not the kind of profile the command needs.
EXIT2 = re.compile(r":\d+: (malformed line: |not a cumulative profile|"
                   r"a (live|cumulative) profile, but )")


class Worker:
    def __init__(self, harness, work, wid):
        self.exits = {}
        self.work = work
        self.wid = wid
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = "detect_leaks=1:leak_check_at_exit=0"
        self.proc = subprocess.Popen([harness], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)

    def run(self, idx, seed_path, data, cmd, is_json):
        base = os.path.join(self.work, "w%d" % self.wid)
        path, out, err = base + ".in", base + ".out", base + ".err"
        with open(path, "wb") as f:
            f.write(data)
        argv = []
        uses_input = False
        for a in cmd:
            if a == "@SEED":
                argv.append(seed_path)
            elif a == "@INPUT":
                argv.append(path)
                uses_input = True
            else:
                argv.append(a)
        if not uses_input:
            argv += ["-f", path]
        leak = "1" if idx % 25 == 0 else "0"
        job = "\t".join([leak, out, err] + argv) + "\n"
        self.proc.stdin.write(job.encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        what = "%d: %s" % (idx, " ".join(a if a != path else "INPUT"
                                         for a in argv))
        if not line:
            return "%s: the harness died" % what
        status = int(line)
        with open(err, "rb") as f:
            errtext = f.read().decode("utf-8", "replace")
        with open(out, "rb") as f:
            outdata = f.read()
        if "Sanitizer" in errtext or "runtime error" in errtext:
            return "%s: sanitizer report: %s" % (what, errtext[:2000])
        if os.WIFSIGNALED(status):
            return "%s: killed by signal %d" % (what, os.WTERMSIG(status))
        code = os.WEXITSTATUS(status)
        self.exits[code] = self.exits.get(code, 0) + 1
        if code not in (0, 2):
            return "%s: exit status %d: %s" % (what, code, errtext[:300])
        if code == 2 and not EXIT2.search(errtext):
            return "%s: exit 2 without a line number: %s" % (what,
                                                             errtext[:300])
        if code == 0 and is_json:
            try:
                json.loads(outdata.decode("utf-8"))
            except ValueError as e:
                return "%s: bad JSON: %s" % (what, e)
        return None

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def work(harness, workdir, wid, nworkers, count, seeds):
    w = Worker(harness, workdir, wid)
    failures = []
    try:
        for i in range(wid, count, nworkers):
            rng = random.Random(SEED + i)
            seed_path, data = rng.choice(seeds)
            cmd, is_json = rng.choice(COMMANDS)
            r = w.run(i, seed_path, mutate(rng, data), cmd, is_json)
            if r:
                failures.append(r)
                if "harness died" in r:
                    break
    finally:
        w.close()
    return failures, w.exits


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    harness, workdir, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seeds = [(p, open(p, "rb").read()) for p in sys.argv[4:]]
    os.makedirs(workdir, exist_ok=True)
    nworkers = 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=nworkers) as ex:
        futures = [ex.submit(work, harness, workdir, k, nworkers, count,
                             seeds) for k in range(nworkers)]
        results = [fut.result() for fut in futures]
    failures = [f for r in results for f in r[0]]
    exits = {}
    for r in results:
        for code, n in r[1].items():
            exits[code] = exits.get(code, 0) + n
    for f in failures[:20]:
        print("FAIL " + f)
    print("%d inputs, %d failures; exit status 0: %d, 2: %d" %
          (count, len(failures), exits.get(0, 0), exits.get(2, 0)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
