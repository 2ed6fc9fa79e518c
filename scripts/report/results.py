#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A run's results where dashboards read them: JUnit XML and KCIDB v5 JSON.

    results.py [--kernel NAME] [--release R] DIR
        read DIR/result.json (a run's results, as scripts/report/ktap.py reads
        them from its TAP, in vm.sh), write DIR/junit.xml and
        DIR/kcidb.json, then check both
    results.py --check DIR...   check DIR/kcidb.json and DIR/junit.xml
    results.py --self-test      prove that each check can fail

Each harness result is one test, at the KCIDB path
kselftest.sched_state.<its name>, each dot-separated part slugged as the
farms slug names (farm_names.py); each program run, such as
sched_state.sh, is one more, at kselftest.sched_state.<program>; JUnit has
a testsuite per program and a testcase per harness result.  ok is PASS, ok # SKIP is SKIP,
not ok is FAIL; a program whose plan and results disagree is ERROR.

The check applies KCIDB's I/O schema v5.0 (kernelci/kcidb-io,
kcidb_io/schema/v05_00.py) to the tests: the version object, "id",
"origin" and "build_id" required, their patterns, the path pattern, the
status set, the types of the other fields, no field outside the schema;
then that ids are unique and that the JUnit file holds the same results.
Exits 1 on any problem.
"""
import datetime
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

import ktap
from farm_names import slugify

SUITE = "kselftest.sched_state"
STATUS = {"pass": "PASS", "skip": "SKIP", "fail": "FAIL"}

# kcidb_io/schema/v05_00.py: Version.origin_pattern, origin_id_pattern,
# test_path_re, $defs/status, $defs/test's properties and "required"
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
ORIGIN_ID_RE = re.compile(r"^[a-z0-9_]+:.*$")
PATH_RE = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")
STATUSES = {"FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"}
REQUIRED = ("build_id", "id", "origin")
ORIGIN = "sched_state"          # KCIDB's origin of every result here
TEST_FIELDS = {
    "_timestamp": "date-time", "build_id": str, "id": str, "origin": str,
    "environment": dict, "path": str, "comment": str, "log_url": str,
    "log_excerpt": str, "status": str, "number": dict, "waived": bool,
    "start_time": "date-time", "duration": (int, float),
    "output_files": list, "misc": dict,
}
TOP_FIELDS = {"version", "checkouts", "builds", "tests", "issues",
              "incidents"}
MAJOR, MINOR = 5, 0
LOG_EXCERPT_MAX = 16384


def programs_of(tests):
    """Programs of a run's results (result.json's "tests"): (name, status,
    tests), each test (name, status, reason, diagnostics); a program
    whose plan and results disagree is ERROR."""
    programs = []
    for i, t in enumerate(tests):
        if t["depth"] != 0:
            continue
        name = t["name"]
        if name.startswith("selftests:"):
            name = name.split(":")[-1].strip()
        st = STATUS[t["result"]]
        if t["planned"] is None or t["planned"] != t["children"]:
            st = "ERROR"
        programs.append((name, st, [
            (c["name"], STATUS[c["result"]],
             (c["comment"] or "") if c["result"] == "skip" else "",
             c["diagnostics"])
            for c in tests if c["parent"] == i]))
    return programs


def path_of(name):
    return ".".join([SUITE] + [slugify(p) or "_" for p in name.split(".")])


def make(programs, origin, build_id, start, misc):
    """The KCIDB v5 document and the JUnit tree of the programs."""
    tests = []
    suites = ET.Element("testsuites", name=SUITE)
    for prog, pstatus, results in programs:
        suite = ET.SubElement(suites, "testsuite", name=f"{SUITE}.{prog}")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for name, st, reason, diag in results:
            path = path_of(name)
            t = {"id": f"{build_id}:{path}", "origin": origin,
                 "build_id": build_id, "path": path, "status": st,
                 "start_time": start,
                 "misc": dict(misc, name=name, program=prog)}
            if reason:
                t["comment"] = reason
            if diag and st != "PASS":
                t["log_excerpt"] = "\n".join(diag)[-LOG_EXCERPT_MAX:]
            tests.append(t)
            cls, _, short = name.rpartition(".")
            case = ET.SubElement(suite, "testcase", name=short or name,
                                 classname=f"{SUITE}.{cls or prog}")
            counts["tests"] += 1
            if st == "SKIP":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=reason or "")
            elif st == "FAIL":
                counts["failures"] += 1
                ET.SubElement(case, "failure",
                              message="not ok").text = "\n".join(diag)
            if diag:
                ET.SubElement(case, "system-out").text = "\n".join(diag)
        if pstatus == "ERROR":
            counts["errors"] += 1
        for k, v in counts.items():
            suite.set(k, str(v))
        path = f"{SUITE}.{slugify(prog)}"
        tests.append({"id": f"{build_id}:{path}", "origin": origin,
                      "build_id": build_id, "path": path, "status": pstatus,
                      "start_time": start, "misc": dict(misc, name=prog)})
    doc = {"version": {"major": MAJOR, "minor": MINOR}, "tests": tests}
    return doc, ET.ElementTree(suites)


def is_datetime(v):
    if not isinstance(v, str) or "T" not in v:
        return False
    try:
        datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def check_doc(doc):
    """Problems of a KCIDB document under schema v5.0's rules."""
    p = []
    if not isinstance(doc, dict):
        return ["the document is not an object"]
    p += [f"top-level field {k!r} not in the schema"
          for k in sorted(set(doc) - TOP_FIELDS)]
    v = doc.get("version")
    if not isinstance(v, dict) or "major" not in v:
        p.append("no version.major")
    else:
        p += [f"version field {k!r} not in the schema"
              for k in sorted(set(v) - {"major", "minor"})]
        if v.get("major") != MAJOR or isinstance(v.get("major"), bool):
            p.append(f"version.major is {v.get('major')!r}, not {MAJOR}")
        minor = v.get("minor", 0)
        if type(minor) is not int or not 0 <= minor <= MINOR:
            p.append(f"version.minor {minor!r} not in 0..{MINOR}")
    tests = doc.get("tests", [])
    if not isinstance(tests, list):
        return p + ["tests is not a list"]
    ids = {}
    for i, t in enumerate(tests):
        w = f"tests[{i}]"
        if not isinstance(t, dict):
            p.append(f"{w} is not an object")
            continue
        w = f"tests[{i}] ({t.get('path', '?')})"
        p += [f"{w}: lacks required {k!r}" for k in REQUIRED if k not in t]
        for k, val in t.items():
            want = TEST_FIELDS.get(k)
            if want is None:
                p.append(f"{w}: field {k!r} not in the schema")
            elif want == "date-time":
                if not is_datetime(val):
                    p.append(f"{w}: {k} {val!r} is no date-time")
            elif not isinstance(val, want) or (isinstance(val, bool)
                                               and want is not bool):
                p.append(f"{w}: {k} has the wrong type")
        for k, rx in (("id", ORIGIN_ID_RE), ("build_id", ORIGIN_ID_RE),
                      ("origin", ORIGIN_RE), ("path", PATH_RE)):
            if k in t and not (isinstance(t[k], str) and rx.match(t[k])):
                p.append(f"{w}: {k} {t[k]!r} does not match {rx.pattern}")
        if "status" in t and t["status"] not in STATUSES:
            p.append(f"{w}: status {t['status']!r} not in "
                     + "/".join(sorted(STATUSES)))
        if len(t.get("log_excerpt", "")) > LOG_EXCERPT_MAX:
            p.append(f"{w}: log_excerpt over {LOG_EXCERPT_MAX} characters")
        if isinstance(t.get("id"), str):
            if t["id"] in ids:
                p.append(f"{w}: id {t['id']!r} repeats tests[{ids[t['id']]}]")
            ids.setdefault(t["id"], i)
    return p


def check_junit(root, doc):
    """Problems of the JUnit tree against the KCIDB document's results."""
    p = []
    if root.tag != "testsuites":
        return [f"JUnit root is <{root.tag}>, not <testsuites>"]
    want = {}
    for t in doc.get("tests", []):
        st = t.get("status")
        if "program" in t.get("misc", {}):
            want[st] = want.get(st, 0) + 1
    got = {"PASS": 0, "SKIP": 0, "FAIL": 0}
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        n = {"tests": len(cases),
             "skipped": sum(c.find("skipped") is not None for c in cases),
             "failures": sum(c.find("failure") is not None for c in cases)}
        for k, v in n.items():
            if suite.get(k) != str(v):
                p.append(f"JUnit {suite.get('name')}: {k}={suite.get(k)}, "
                         f"its test cases make {v}")
        got["SKIP"] += n["skipped"]
        got["FAIL"] += n["failures"]
        got["PASS"] += n["tests"] - n["skipped"] - n["failures"]
    for st in sorted(set(got) | set(want)):
        if got.get(st, 0) != want.get(st, 0):
            p.append(f"{got.get(st, 0)} {st} in JUnit, "
                     f"{want.get(st, 0)} in KCIDB")
    return p


def check_dir(d):
    p = []
    try:
        with open(os.path.join(d, "kcidb.json")) as f:
            doc = json.load(f)
        root = ET.parse(os.path.join(d, "junit.xml")).getroot()
    except (OSError, ValueError, ET.ParseError) as e:
        return [f"{d}: {e}"]
    p = [f"{d}/kcidb.json: {x}" for x in check_doc(doc)]
    if not doc.get("tests"):
        p.append(f"{d}/kcidb.json: no tests")
    p += [f"{d}/junit.xml: {x}" for x in check_junit(root, doc)]
    counts = {}
    for t in doc.get("tests", []):
        counts[t.get("status")] = counts.get(t.get("status"), 0) + 1
    print(f"{d}: {len(doc.get('tests', []))} KCIDB tests ("
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(),
                                                    key=str))
          + f"), {len(p)} problem(s)")
    return p


def write(d, origin, build_id, kernel, release):
    result = os.path.join(d, "result.json")
    with open(result) as f:
        programs = programs_of(json.load(f)["tests"])
    start = datetime.datetime.fromtimestamp(
        os.path.getmtime(result), datetime.timezone.utc).isoformat()
    misc = {k: v for k, v in (("kernel", kernel), ("release", release)) if v}
    doc, junit = make(programs, origin, build_id, start, misc)
    with open(os.path.join(d, "kcidb.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    ET.indent(junit)
    junit.write(os.path.join(d, "junit.xml"), encoding="utf-8",
                xml_declaration=True)


def expect(what, want, got):
    """Whether the problems GOT hold WANT (None: that there are none),
    saying so; the self-tests' one verdict."""
    ok = any(want in x for x in got) if want else not got
    print(f"--- {what}: expect {want or 'no problem'}: "
          f"{'as expected' if ok else 'NOT AS EXPECTED'}")
    for x in got:
        print("  " + x)
    return ok


def self_test():
    text = "\n".join([
        "TAP version 13", "1..2", "# selftests: sched_state: sched_state.sh",
        "# TAP version 13", "# 1..3", "# ok 1 child.busy_loop_is_R",
        "# #      SKIP      needs CONFIG_PREEMPT_RT",
        "# ok 2 global.rtlock_keeps_wakeup # SKIP needs CONFIG_PREEMPT_RT",
        "# # sched_state_test.c:42:Expected 1 (1) == seen (0)",
        "# not ok 3 race.lost_wakeups",
        "not ok 1 selftests: sched_state: sched_state.sh # exit=1",
        "# selftests: sched_state: sched_state.sh hung_task",
        "# TAP version 13", "# 1..1",
        "# ok 1 hung_task.uninterruptible.detector",
        "ok 2 selftests: sched_state: sched_state.sh hung_task", ""])
    tests = ktap.parse(text.splitlines())["tests"]
    doc, junit = make(programs_of(tests), "sched_state", "sched_state:mainline",
                      "2026-01-01T00:00:00+00:00", {})
    root = junit.getroot()
    t0 = ("tests", 0)
    # (what, the problem expected, where in the document, the change)
    edits = [
        ("no id", "lacks required 'id'", t0, {"id": None}),
        ("no origin", "lacks required 'origin'", ("tests", 1),
         {"origin": None}),
        ("no build_id", "lacks required 'build_id'", ("tests", 2),
         {"build_id": None}),
        ("a space in the path", "path 'kselftest.a b' does not match", t0,
         {"path": "kselftest.a b"}),
        ("an empty path part", "path 'kselftest..x' does not match", t0,
         {"path": "kselftest..x"}),
        ("status ok", "status 'ok'", t0, {"status": "ok"}),
        ("an upper-case origin", "origin 'Sched'", t0, {"origin": "Sched"}),
        ("an id without origin:", "does not match", t0, {"id": "nocolon"}),
        ("a field outside the schema", "'name' not in the schema", t0,
         {"name": "x"}),
        ("version 4", "version.major is 4", ("version", None), {"major": 4}),
        ("a repeated id", "repeats tests[0]", ("tests", 1),
         {"id": doc["tests"][0]["id"]}),
        ("a bad start_time", "no date-time", t0, {"start_time": "yesterday"}),
        ("a PASS turned SKIP in KCIDB only", "in JUnit", t0,
         {"status": "SKIP"}),
    ]
    sts = [t["status"] for t in doc["tests"]]
    bad = sts != ["PASS", "SKIP", "FAIL", "FAIL", "PASS", "PASS"]
    paths = [t["path"] for t in doc["tests"]][-2:]
    if paths != [f"{SUITE}.hung_task.uninterruptible.detector",
                 f"{SUITE}.sched_state_sh_hung_task"]:
        print(f"self-test: the hung-task program's paths {paths}")
        bad += 1
    if bad:
        print(f"self-test: parsed statuses {sts}")
    bad += not expect("the run as made", None,
                      check_doc(doc) + check_junit(root, doc))
    for what, want, (key, i), change in edits:
        d = json.loads(json.dumps(doc))
        obj = d[key] if i is None else d[key][i]
        for k, v in change.items():
            if v is None:
                obj.pop(k)
            else:
                obj[k] = v
        bad += not expect(what, want, check_doc(d) + check_junit(root, d))
    short = ET.fromstring(ET.tostring(root))
    s = short.find("testsuite")
    s.remove(s.find("testcase"))
    bad += not expect("a test case missing from JUnit", "its test cases make",
                      check_doc(doc) + check_junit(short, doc))
    print(f"self-test: {'PASS' if not bad else f'FAIL, {bad} case(s)'}")
    return not bad


def main(argv):
    if argv == ["--self-test"]:
        return 0 if self_test() else 1
    if argv[:1] == ["--check"] and argv[1:]:
        p = [x for d in argv[1:] for x in check_dir(d)]
        for x in p:
            print("  " + x)
        print(f"results: {len(argv) - 1} run(s): "
              + ("PASS" if not p else f"FAIL, {len(p)} problem(s)"))
        return 1 if p else 0
    opts = {"--kernel": None, "--release": None}
    while len(argv) > 1 and argv[0] in opts:
        opts[argv[0]], argv = argv[1], argv[2:]
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = argv[0]
    kernel = opts["--kernel"] or os.path.basename(
        os.path.dirname(os.path.abspath(d)))
    build_id = f"{ORIGIN}:{kernel}" + (
        f"-{opts['--release']}" if opts["--release"] else "")
    write(d, ORIGIN, build_id, kernel, opts["--release"])
    return main(["--check", d])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
