#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the job entries of ci/ that enable sched_state in KernelCI and LKFT.

    ci-jobs.py              load and check them; exit 1 on any problem
    ci-jobs.py --self-test  prove that each check can fail

ci/kernelci/jobs.yaml and scheduler.yaml are loaded with python3-yaml after
ci/kernelci/anchors.yaml, the kernelci-pipeline anchors they use, as
kernelci-pipeline loads its config/jobs.yaml and config/scheduler.yaml.
The job must be a kselftest job (generic.jinja2, test_method kselftest) of
an existing collection with its kcidb_test_suite kselftest.<collection>, a
job_timeout that covers the collection's settings timeout and a boot, and a
min_version no older than 6.9 (lib.mk's TEST_GEN_MODS_DIR); the scheduler
must run it from the arm and the arm64 kselftest kbuilds on LAVA boards.
ci/tuxlava/kselftest.py is read with ast (tuxlava is not needed): a
KSelftestSchedState(KSelfTest) whose name runs the collection and whose
timeout (minutes) covers the same.
"""
import ast
import copy
import math
import os
import re
import sys

import yaml

from results import expect

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CI = os.path.join(TOP, "ci")
COLLECTION = "sched_state"
JOB = f"kselftest-{COLLECTION}"
BOOT_MINUTES = 5
MIN_VERSION = (6, 9)
KBUILDS = {"arm": "kbuild-gcc-14-arm-kselftest",
           "arm64": "kbuild-gcc-14-arm64-kselftest"}
KCIDB_PATH = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")


def read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()


def load(name):
    """ci/kernelci/NAME.yaml, its aliases resolved by anchors.yaml."""
    return yaml.safe_load(read(CI, "kernelci", "anchors.yaml") + "\n"
                          + read(CI, "kernelci", f"{name}.yaml"))


def minutes_needed(top):
    """The collection's program timeout, in minutes, and a boot."""
    path = os.path.join(top, "tools/testing/selftests", COLLECTION,
                        "settings")
    m = re.search(r"^timeout=(\d+)$", read(path), re.M)
    return math.ceil(int(m.group(1)) / 60) + BOOT_MINUTES


def collection_exists(top, name):
    mk = os.path.join(top, "tools/testing/selftests", str(name), "Makefile")
    return os.path.isfile(mk) and "TEST_PROGS" in read(mk)


def too_short(where, t, top):
    """A problem if T, minutes, is no int covering the run, else None."""
    need = minutes_needed(top)
    if type(t) is not int or t < need:
        return (f"{where} {t!r}: under the {need} minutes the settings "
                "timeout and a boot take")
    return None


def check_job(jobs, top):
    p = []
    job = (jobs or {}).get("jobs", {}).get(JOB)
    if not isinstance(job, dict):
        return [f"jobs.yaml: no job {JOB}"]
    params = job.get("params") or {}
    for k, want in (("template", "generic.jinja2"), ("kind", "job")):
        if job.get(k) != want:
            p.append(f"jobs.yaml: {JOB}: {k} {job.get(k)!r}, not {want!r}")
    for k, want in (("test_method", "kselftest"),
                    ("rootfs_ref", "trixie-kselftest")):
        if params.get(k) != want:
            p.append(f"jobs.yaml: {JOB}: params.{k} {params.get(k)!r},"
                     f" not {want!r}")
    coll = params.get("collections")
    if coll != COLLECTION or not collection_exists(top, coll):
        p.append(f"jobs.yaml: {JOB}: params.collections {coll!r}: not "
                 f"{COLLECTION}, a collection of tools/testing/selftests")
    suite = job.get("kcidb_test_suite")
    if suite != f"kselftest.{coll}" or not KCIDB_PATH.match(str(suite)):
        p.append(f"jobs.yaml: {JOB}: kcidb_test_suite {suite!r}, not "
                 f"kselftest.{coll}")
    p += filter(None, [too_short(f"jobs.yaml: {JOB}: params.job_timeout",
                                 params.get("job_timeout"), top)])
    rules = job.get("rules") or {}
    if not rules.get("tree"):
        p.append(f"jobs.yaml: {JOB}: rules lost the kselftest trees")
    mv = rules.get("min_version") or {}
    v = (mv.get("version"), mv.get("patchlevel"))
    if not all(type(x) is int for x in v) or v < MIN_VERSION:
        p.append(f"jobs.yaml: {JOB}: rules.min_version {mv!r}: not a "
                 f"version from {MIN_VERSION[0]}.{MIN_VERSION[1]} on")
    return p


def check_scheduler(sched, jobs):
    p = []
    known = set((jobs or {}).get("jobs", {}))
    entries = (sched or {}).get("scheduler")
    if not isinstance(entries, list) or not entries:
        return ["scheduler.yaml: no scheduler entries"]
    seen = set()
    for i, e in enumerate(entries):
        w = f"scheduler.yaml: entry {i}"
        if e.get("job") not in known:
            p.append(f"{w}: job {e.get('job')!r} is not in jobs.yaml")
        ev = e.get("event") or {}
        if (ev.get("channel"), ev.get("kind"), ev.get("state")) != \
                ("node", "kbuild", "available"):
            p.append(f"{w}: event is not an available kbuild node")
        if ev.get("name") not in KBUILDS.values():
            p.append(f"{w}: event name {ev.get('name')!r} is no "
                     "kselftest kbuild of " + " or ".join(KBUILDS))
        rt = e.get("runtime") or {}
        if rt.get("type") != "lava" or not rt.get("name"):
            p.append(f"{w}: runtime {rt!r} is no LAVA lab")
        plats = e.get("platforms")
        if not isinstance(plats, list) or not plats or \
                not all(isinstance(x, str) and x for x in plats):
            p.append(f"{w}: no platforms")
        if e.get("job") == JOB:
            seen |= {a for a, k in KBUILDS.items() if ev.get("name") == k}
    p += [f"scheduler.yaml: {JOB} never runs on {a}"
          for a in sorted(set(KBUILDS) - seen)]
    return p


def check_tuxlava(text, top):
    p = []
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        return [f"tuxlava/kselftest.py: {e}"]
    cls = [n for n in tree.body if isinstance(n, ast.ClassDef)
           and n.name == "KSelftestSchedState"]
    if not cls:
        return ["tuxlava/kselftest.py: no class KSelftestSchedState"]
    c = cls[0]
    if [getattr(b, "id", None) for b in c.bases] != ["KSelfTest"]:
        p.append("tuxlava/kselftest.py: KSelftestSchedState does not "
                 "derive from KSelfTest")
    attrs = {}
    for n in c.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, ast.Constant):
            attrs[n.targets[0].id] = n.value.value
    name = attrs.get("name")
    # KSelfTest.render: cmdfile, else the name less "kselftest-"
    coll = attrs.get("cmdfile") or str(name).replace("kselftest-", "")
    if name != JOB or coll != COLLECTION or not collection_exists(top, coll):
        p.append(f"tuxlava/kselftest.py: name {name!r} runs collection "
                 f"{coll!r}, not {COLLECTION}")
    p += filter(None, [too_short("tuxlava/kselftest.py: timeout",
                                 attrs.get("timeout"), top)])
    return p


def check_all(jobs, sched, tux, top=TOP):
    return check_job(jobs, top) + check_scheduler(sched, jobs) + \
        check_tuxlava(tux, top)


def self_test(jobs, sched, tux):
    bad = 0

    def case(what, want, j=jobs, s=sched, t=tux):
        nonlocal bad
        bad += not expect(what, want, check_all(j, s, t))

    def job(f):
        j = copy.deepcopy(jobs)
        f(j["jobs"][JOB])
        return j

    def entry(i, f):
        s = copy.deepcopy(sched)
        f(s["scheduler"][i])
        return s

    case("the entries as they are", None)
    case("another suite", "kcidb_test_suite",
         job(lambda j: j.update(kcidb_test_suite="kselftest.rseq")))
    case("a collection that does not exist", "params.collections",
         job(lambda j: j["params"].update(collections="sched-state")))
    case("a short job_timeout", "params.job_timeout 2",
         job(lambda j: j["params"].update(job_timeout=2)))
    case("no min_version", "rules.min_version",
         job(lambda j: j["rules"].pop("min_version")))
    case("min_version 6.1", "rules.min_version",
         job(lambda j: j["rules"]["min_version"].update(version=6,
                                                        patchlevel=1)))
    case("rules without the trees", "lost the kselftest trees",
         job(lambda j: j["rules"].pop("tree")))
    case("not a kselftest job", "params.test_method",
         job(lambda j: j["params"].update(test_method="baseline")))
    case("an unknown job scheduled", "is not in jobs.yaml",
         s=entry(0, lambda e: e.update(job="kselftest-sched")))
    case("no arm64 entry", "never runs on arm64",
         s=entry(1, lambda e: e["event"].update(
             name=KBUILDS["arm"])))
    case("a non-kselftest kbuild", "is no kselftest kbuild",
         s=entry(0, lambda e: e["event"].update(name="kbuild-gcc-14-arm")))
    case("no platforms", "no platforms",
         s=entry(1, lambda e: e.update(platforms=[])))
    case("tuxlava: another name", "runs collection 'sched-state'",
         t=tux.replace('"kselftest-sched_state"', '"kselftest-sched-state"'))
    case("tuxlava: a short timeout", "timeout 3",
         t=re.sub(r"timeout = \d+", "timeout = 3", tux))
    case("tuxlava: no class", "no class",
         t=tux.replace("KSelftestSchedState", "KSelftestSched"))
    print(f"self-test: {'PASS' if not bad else f'FAIL, {bad} case(s)'}")
    return not bad


def main(argv):
    try:
        jobs, sched = load("jobs"), load("scheduler")
        tux = read(CI, "tuxlava", "kselftest.py")
    except (OSError, yaml.YAMLError) as e:
        print(f"ci-jobs: {e}")
        return 1
    if argv == ["--self-test"]:
        return 0 if self_test(jobs, sched, tux) else 1
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    p = check_all(jobs, sched, tux)
    for x in p:
        print("  " + x)
    j = jobs["jobs"].get(JOB, {})
    print(f"ci-jobs: {JOB} (timeout {j.get('params', {}).get('job_timeout')}"
          f" min), {len(sched.get('scheduler', []))} scheduler entries, "
          f"tuxlava KSelftestSchedState: "
          + ("PASS" if not p else f"FAIL, {len(p)} problem(s)"))
    return 1 if p else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
