#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the job entries of ci/ that enable sched_state in KernelCI and LKFT.

usage: ci-jobs.py [--self-test]   exit 1 on any problem
"""
import ast
import math
import os
import re
import sys

import yaml

from ktap import edited, expect, verdict
from results import SUITE

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CI = os.path.join(TOP, "ci")
COLLECTION = "sched_state"
JOB = f"kselftest-{COLLECTION}"
BOOT_MINUTES = 5
MIN_VERSION = (6, 9)    # lib.mk builds TEST_GEN_MODS_DIR from 6.9
KBUILDS = {"arm": "kbuild-gcc-14-arm-kselftest", "arm64": "kbuild-gcc-14-arm64-kselftest"}


def read(*parts):
    return open(os.path.join(*parts)).read()


def load(name):
    # as kernelci-pipeline loads its config: after anchors.yaml
    return yaml.safe_load(read(CI, "kernelci", "anchors.yaml") + "\n" +
                          read(CI, "kernelci", f"{name}.yaml"))


def collection_exists(name):
    mk = os.path.join(TOP, "tools/testing/selftests", str(name), "Makefile")
    return os.path.isfile(mk) and "TEST_PROGS" in read(mk)


def too_short(where, t):
    """T minutes must cover the collection's settings timeout and a boot."""
    settings = read(TOP, "tools/testing/selftests", COLLECTION, "settings")
    need = math.ceil(int(re.search(r"^timeout=(\d+)$", settings, re.M)[1]) / 60) + BOOT_MINUTES
    return ([f"{where} {t!r}: under the {need} minutes the settings timeout and a boot take"]
            if type(t) is not int or t < need else [])


def check_job(jobs):
    """A kselftest job of the collection, from MIN_VERSION on."""
    if not isinstance(job := (jobs or {}).get("jobs", {}).get(JOB), dict):
        return [f"jobs.yaml: no job {JOB}"]
    w = f"jobs.yaml: {JOB}:"
    params, rules = job.get("params") or {}, job.get("rules") or {}
    want = {"template": "generic.jinja2", "kind": "job", "params.test_method": "kselftest",
            "params.rootfs_ref": "trixie-kselftest", "kcidb_test_suite": SUITE}
    got = dict(job, **{"params." + k: v for k, v in params.items()})
    p = [f"{w} {k} {got.get(k)!r}, not {v!r}" for k, v in want.items() if got.get(k) != v]
    if (coll := params.get("collections")) != COLLECTION or not collection_exists(coll):
        p.append(f"{w} params.collections {coll!r}: not {COLLECTION}, "
                 "a collection of tools/testing/selftests")
    p += too_short(f"{w} params.job_timeout", params.get("job_timeout"))
    if not rules.get("tree"):
        p.append(f"{w} rules lost the kselftest trees")
    mv = rules.get("min_version") or {}
    v = (mv.get("version"), mv.get("patchlevel"))
    if not all(type(x) is int for x in v) or v < MIN_VERSION:
        p.append(f"{w} rules.min_version {mv!r}: not from {MIN_VERSION[0]}.{MIN_VERSION[1]} on")
    return p


def check_scheduler(sched, jobs):
    """Known jobs on LAVA boards, the job's on the arm and arm64 kbuilds."""
    if not isinstance(entries := (sched or {}).get("scheduler"), list) or not entries:
        return ["scheduler.yaml: no scheduler entries"]
    p, seen = [], set()
    for i, e in enumerate(entries):
        w = f"scheduler.yaml: entry {i}"
        if e.get("job") not in (jobs or {}).get("jobs", {}):
            p.append(f"{w}: job {e.get('job')!r} is not in jobs.yaml")
        ev = e.get("event") or {}
        if (ev.get("channel"), ev.get("kind"), ev.get("state")) != ("node", "kbuild", "available"):
            p.append(f"{w}: event is not an available kbuild node")
        if ev.get("name") not in KBUILDS.values():
            p.append(f"{w}: event name {ev.get('name')!r} is no kselftest kbuild of " +
                     " or ".join(KBUILDS))
        rt = e.get("runtime") or {}
        if rt.get("type") != "lava" or not rt.get("name"):
            p.append(f"{w}: runtime {rt!r} is no LAVA lab")
        plats = e.get("platforms")
        if not isinstance(plats, list) or not all(isinstance(x, str) and x for x in plats or [""]):
            p.append(f"{w}: no platforms")
        if e.get("job") == JOB:
            seen |= {a for a, k in KBUILDS.items() if ev.get("name") == k}
    return p + [f"scheduler.yaml: {JOB} never runs on {a}" for a in sorted(set(KBUILDS) - seen)]


def check_tuxlava(text):
    """A KSelftestSchedState(KSelfTest) running the collection long enough."""
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        return [f"tuxlava/kselftest.py: {e}"]
    c = next((n for n in tree.body
              if isinstance(n, ast.ClassDef) and n.name == "KSelftestSchedState"), None)
    if not c:
        return ["tuxlava/kselftest.py: no class KSelftestSchedState"]
    p = []
    if [getattr(b, "id", None) for b in c.bases] != ["KSelfTest"]:
        p.append("tuxlava/kselftest.py: KSelftestSchedState does not derive from KSelfTest")
    attrs = {n.targets[0].id: n.value.value for n in c.body
             if isinstance(n, ast.Assign) and len(n.targets) == 1 and
             isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
    name = attrs.get("name")
    # KSelfTest.render: cmdfile, else the name less "kselftest-"
    coll = attrs.get("cmdfile") or str(name).replace("kselftest-", "")
    if name != JOB or coll != COLLECTION or not collection_exists(coll):
        p.append(f"tuxlava/kselftest.py: name {name!r} runs collection {coll!r}, not {COLLECTION}")
    return p + too_short("tuxlava/kselftest.py: timeout", attrs.get("timeout"))


def check_all(jobs, sched, tux):
    return check_job(jobs) + check_scheduler(sched, jobs) + check_tuxlava(tux)


def self_test(jobs, sched, tux):
    def job(keys, value):
        return check_all(edited(jobs, f"jobs.{JOB}.{keys}", value), sched, tux)

    def entry(keys, value):
        return check_all(jobs, edited(sched, "scheduler." + keys, value), tux)

    def tuxlava(old, new):
        return check_all(jobs, sched, re.sub(old, new, tux))
    return expect([
        ("the entries as they are", None, check_all(jobs, sched, tux)),
        ("another suite", "kcidb_test_suite", job("kcidb_test_suite", "kselftest.rseq")),
        ("a collection that does not exist", "params.collections",
         job("params.collections", "sched-state")),
        ("a short job_timeout", "params.job_timeout 2", job("params.job_timeout", 2)),
        ("no min_version", "rules.min_version", job("rules.min_version", None)),
        ("min_version 6.1", "rules.min_version",
         job("rules.min_version", {"version": 6, "patchlevel": 1})),
        ("rules without the trees", "lost the kselftest trees", job("rules.tree", None)),
        ("not a kselftest job", "params.test_method", job("params.test_method", "baseline")),
        ("an unknown job scheduled", "is not in jobs.yaml", entry("0.job", "kselftest-sched")),
        ("no arm64 entry", "never runs on arm64", entry("1.event.name", KBUILDS["arm"])),
        ("a non-kselftest kbuild", "is no kselftest kbuild",
         entry("0.event.name", "kbuild-gcc-14-arm")),
        ("no platforms", "no platforms", entry("1.platforms", [])),
        ("tuxlava: another name", "runs collection 'sched-state'",
         tuxlava('"kselftest-sched_state"', '"kselftest-sched-state"')),
        ("tuxlava: a short timeout", "timeout 3", tuxlava(r"timeout = \d+", "timeout = 3")),
        ("tuxlava: no class", "no class", tuxlava("KSelftestSchedState", "KSelftestSched"))])


def main(argv):
    try:
        jobs, sched, tux = load("jobs"), load("scheduler"), read(CI, "tuxlava", "kselftest.py")
    except (OSError, yaml.YAMLError) as e:
        print(f"ci-jobs: {e}")
        return 1
    if argv == ["--self-test"]:
        return self_test(jobs, sched, tux)
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return verdict(check_all(jobs, sched, tux), f"ci-jobs: {JOB}, {len(sched.get('scheduler', []))}"
                   " scheduler entries, tuxlava KSelftestSchedState")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
