#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check result names as the CI farms make them (Linaro test-definitions'
kselftest parse-output.py, for LKFT and KernelCI's LAVA jobs).

usage: farm_names.py RESULT_JSON...   exit 1 unless in each run every test
                                      reports once (one program, no _dupN),
                                      every name is at most MAX_LEN long and
                                      all runs have the same names, less the
                                      skip reasons
       farm_names.py --self-test
"""
import json
import re
import sys

import ktap

MAX_LEN = 100


def slugify(s):
    s = re.sub(r"\[\d{1,5}\]", "", s)
    s = re.sub(r"(^_|_$)", "", re.sub(r"[^A-Za-z0-9_-]+", "_", s))
    return re.sub(r"_-", "__", s)


def flatten(tests, parent=None, prefix="", base_prefix=""):
    """(farm name, the same less skip reasons, test or None at the top
    level) of each result under PARENT, children first: a result's name is
    its parents' and its own, slugged, joined by "_", a skip's reason
    appended."""
    out = []
    for i, t in enumerate(tests):
        if t["parent"] != parent or (parent is None and t["depth"]):
            continue
        desc = t["name"]
        if desc.startswith("selftests:"):
            desc = desc[10:].strip()
        full = desc
        if t["result"] == "skip" and t["comment"]:
            full = f"{desc} {t['comment']}".strip()
        name = prefix + (slugify(full) or "<unknown>")
        base = base_prefix + (slugify(desc) or "<unknown>")
        out += flatten(tests, i, name + "_", base + "_")
        out.append((name, base, None if parent is None else desc))
    return out


def check(runs):
    """Problems across runs, (label, result.json's tests) each; prints them
    and a summary."""
    problems, bases = [], {}
    for label, tests in runs:
        flat, found, seen, where, longest = flatten(tests), [], {}, {}, 0
        for name, base, test in flat:
            n = seen[name] = seen.get(name, 0) + 1
            if n > 1:
                name += f"_dup{n}"
                found.append(f"duplicate name: {name}")
            if test is not None:
                where.setdefault(test, []).append(base)
            if len(name) > MAX_LEN:
                found.append(f"{len(name)} characters: {name}")
            longest = max(longest, len(name))
        found += [f"{test} reported {len(w)} times: " + " ".join(w)
                  for test, w in where.items() if len(w) > 1]
        if not flat:
            found.append("no results")
        bases[label] = {base for _, base, _ in flat}
        problems += [f"{label}: {p}" for p in found]
        print(f"{label}: {len(flat)} results, longest name {longest}, "
              f"{len(found)} problem(s)")
    union = set().union(*bases.values())
    for label, b in bases.items():
        problems += [f"{label}: lacks {n}" for n in sorted(union - b)]
    ktap.verdict(problems, f"names: {len(runs)} file(s), {len(union)} names")
    return problems


def self_test():
    good = ["child.busy_loop_is_R", "kthread.idle.stops",
            "global.rtlock_keeps_wakeup # SKIP needs CONFIG_PREEMPT_RT"]
    passed = good[:2] + ["global.rtlock_keeps_wakeup"]
    renamed = good[:1] + ["kthread.idle.stop"] + good[2:]
    long_name = "kthread." + "x" * 60 + " # SKIP module not loaded"
    sh = "sched_state.sh"
    # the tooling's run: the hung-task program after the default run
    hung = ("sched_state.sh hung_task", ["hung_task.uninterruptible.detector",
                                         "hung_task.killable.detector"])

    def run(*programs):
        """A run_kselftest.sh output's tests: (program, its tests) each."""
        lines = ["TAP version 13", f"1..{len(programs)}"]
        for n, (program, tests) in enumerate(programs, 1):
            lines += [f"# selftests: sched_state: {program}",
                      "# TAP version 13", f"# 1..{len(tests)}"]
            lines += [f"# ok {i} {t}" for i, t in enumerate(tests, 1)]
            lines.append(f"ok {n} selftests: sched_state: {program}")
        return ktap.parse(lines)["tests"]

    def files(*runs):
        return check([(f"file{i}", r) for i, r in enumerate(runs, 1)])
    return ktap.expect([
        ("one pass, one skip: the same names", None,
         files(run((sh, good)), run((sh, passed)))),
        ("the hung-task program after the default run", None,
         files(run((sh, good), hung), run((sh, passed), hung))),
        ("a hung_task result in both programs", "reported 2 times",
         files(run((sh, good + hung[1][:1]), hung))),
        ("a test under two programs", "reported 2 times",
         files(run(("sched_state_test", good), (sh, good)))),
        ("a test twice in one program", "_dup2",
         files(run((sh, good + good[:1])))),
        ("a name over 100 characters", "113 characters",
         files(run((sh, good + [long_name])))),
        ("a name only one file has", "file2: lacks",
         files(run((sh, good)), run((sh, good[:2])))),
        ("a name differing between files",
         "file2: lacks sched_state_sched_state_sh_kthread_idle_stops",
         files(run((sh, good)), run((sh, renamed))))])


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = []
    for path in argv:
        with open(path) as f:
            runs.append((path, json.load(f)["tests"]))
    return 1 if check(runs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
