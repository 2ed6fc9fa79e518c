#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check result names the way CI farms make them.

    farm_names.py RESULT_JSON...  check the results of runs (a
                                  run_kselftest.sh output as
                                  scripts/report/ktap.py reads it)
    farm_names.py --self-test     prove that each check can fail

Names are made as Linaro test-definitions' kselftest parse-output.py (LKFT,
KernelCI's LAVA jobs) makes them: a result's name is its parents' names and
its own, joined by "_", each slugged (runs of characters outside
[A-Za-z0-9_-] become "_"), a skipped test's reason appended, "_dupN" added
to a repeated name.  Fails (exit 1) unless, in every file, each test reports
once (under one program, and no "_dupN"), every name is at most MAX_LEN
characters, and all files have the same names, less the skip reasons.
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


def tree(tests, parent=None):
    """(name, skip reason, children) of each result of a run's results
    (result.json's "tests") under PARENT (None: the top level)."""
    out = []
    for i, t in enumerate(tests):
        if t["parent"] != parent or (parent is None and t["depth"]):
            continue
        desc = t["name"]
        if desc.startswith("selftests:"):
            desc = desc[10:].strip()
        reason = (t["comment"] or "") if t["result"] == "skip" else None
        out.append((desc, reason, tree(tests, i)))
    return out


def flatten(results, prefix="", base_prefix="", top=True):
    """(farm name, the same less skip reasons, test) of each result,
    children first, as parse-output.py lists them."""
    out = []
    for desc, reason, children in results:
        full = f"{desc} {reason}".strip() if reason else desc
        name = prefix + (slugify(full) or "<unknown>")
        base = base_prefix + (slugify(desc) or "<unknown>")
        out += flatten(children, name + "_", base + "_", False)
        out.append((name, base, None if top else desc))
    return out


def check_file(tests):
    """(farm names, base names, problems) of one run's results."""
    flat = flatten(tree(tests))
    problems, seen, tests = [], {}, {}
    names = []
    for name, base, test in flat:
        n = seen[name] = seen.get(name, 0) + 1
        if n > 1:
            name += f"_dup{n}"
            problems.append(f"duplicate name: {name}")
        if test is not None:
            tests.setdefault(test, []).append(base)
        if len(name) > MAX_LEN:
            problems.append(f"{len(name)} characters: {name}")
        names.append(name)
    for test, where in tests.items():
        if len(where) > 1:
            problems.append(f"{test} reported {len(where)} times: "
                            + " ".join(where))
    return names, {base for _, base, _ in flat}, problems


def check(runs):
    """Problems across runs (label, their results); prints them and a
    summary."""
    problems, bases = [], {}
    for label, tests in runs:
        names, bases[label], found = check_file(tests)
        if not names:
            found.append("no results")
        problems += [f"{label}: {p}" for p in found]
        longest = max((len(n) for n in names), default=0)
        print(f"{label}: {len(names)} results, longest name {longest}, "
              f"{len(found)} problem(s)")
    union = set().union(*bases.values())
    for label, b in bases.items():
        problems += [f"{label}: lacks {n}" for n in sorted(union - b)]
    for p in problems:
        print("  " + p)
    verdict = f"FAIL, {len(problems)} problem(s)" if problems else "PASS"
    print(f"names: {len(runs)} file(s), {len(union)} names: {verdict}")
    return problems


def tap(*programs):
    """A run_kselftest.sh output: a (program, its tests) pair per program."""
    lines = ["TAP version 13", f"1..{len(programs)}"]
    for n, (program, tests) in enumerate(programs, 1):
        lines += [f"# selftests: sched_state: {program}", "# TAP version 13",
                  f"# 1..{len(tests)}"]
        lines += [f"# ok {i} {t}" for i, t in enumerate(tests, 1)]
        lines.append(f"ok {n} selftests: sched_state: {program}")
    return "\n".join(lines) + "\n"


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
    cases = [
        ("one pass, one skip: the same names", None,
         [tap((sh, good)), tap((sh, passed))]),
        ("the hung-task program after the default run", None,
         [tap((sh, good), hung), tap((sh, passed), hung)]),
        ("a hung_task result in both programs", "reported 2 times",
         [tap((sh, good + hung[1][:1]), hung)]),
        ("a test under two programs", "reported 2 times",
         [tap(("sched_state_test", good), (sh, good))]),
        ("a test twice in one program", "_dup2", [tap((sh, good + good[:1]))]),
        ("a name over 100 characters", "113 characters",
         [tap((sh, good + [long_name]))]),
        ("a name only one file has", "file2: lacks",
         [tap((sh, good)), tap((sh, good[:2]))]),
        ("a name differing between files",
         "file2: lacks sched_state_sched_state_sh_kthread_idle_stops",
         [tap((sh, good)), tap((sh, renamed))]),
    ]
    bad = 0
    for what, want, texts in cases:
        print(f"--- {what}: expect {want or 'PASS'}")
        got = check([(f"file{i}", ktap.parse(t.splitlines())["tests"])
                     for i, t in enumerate(texts, 1)])
        ok = any(want in p for p in got) if want else not got
        if not ok:
            print(f"self-test FAILED: {what}")
            bad += 1
    print(f"self-test: {len(cases) - bad}/{len(cases)} cases as expected")
    return not bad


def main(argv):
    if argv == ["--self-test"]:
        return 0 if self_test() else 1
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
