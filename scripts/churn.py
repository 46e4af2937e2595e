#!/usr/bin/env python3
"""Rework churn of a patch series: lines that one commit of the series adds
and a later commit of the same series removes again.

    churn.py [REPO] [BASE] [HEAD]     (defaults: build/linux base HEAD)

For every commit in BASE..HEAD, the lines it removes are blamed in its
parent; a removed line whose blame is a commit of the series (not BASE's
history) counts as churn.  Prints one line per commit with churn and the
total: churn lines / lines added by the series.
"""
import re
import subprocess
import sys


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else "build/linux"
    base = sys.argv[2] if len(sys.argv) > 2 else "base"
    head = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
    commits = git(repo, "rev-list", "--reverse", f"{base}..{head}").split()
    series = set(commits)
    added_total = 0
    churn_total = 0
    for c in commits:
        subj = git(repo, "log", "-1", "--format=%s", c).strip()
        diff = git(repo, "diff", "-U0", "--no-renames", f"{c}^", c)
        added = 0
        removed = {}          # path -> list of (start, count) in the parent
        path = None
        for line in diff.splitlines():
            if line.startswith("--- "):
                path = line[6:] if line.startswith("--- a/") else None
            elif line.startswith("+++ "):
                pass
            elif line.startswith("@@"):
                m = re.match(r"@@ -(\d+)(?:,(\d+))? \+", line)
                start, count = int(m.group(1)), int(m.group(2) or "1")
                if path and count:
                    removed.setdefault(path, []).append((start, count))
            elif line.startswith("+"):
                added += 1
        churn = 0
        for p, ranges in removed.items():
            args = ["blame", "--porcelain"]
            for s, n in ranges:
                args += ["-L", f"{s},{s + n - 1}"]
            out = git(repo, *args, f"{c}^", "--", p)
            for bl in out.splitlines():
                m = re.match(r"^([0-9a-f]{40}) \d+ \d+", bl)
                if m and m.group(1) in series:
                    churn += 1
        added_total += added
        churn_total += churn
        if churn:
            print(f"{churn:6d}  {subj}")
    pct = 100.0 * churn_total / added_total if added_total else 0.0
    print(f"churn: {churn_total} of {added_total} added lines ({pct:.2f}%)")


if __name__ == "__main__":
    main()
