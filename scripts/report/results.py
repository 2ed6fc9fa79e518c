#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A run's results as dashboards read them: JUnit XML and KCIDB v5 JSON.

usage: results.py --kernel NAME --release R DIR
           write DIR/junit.xml and DIR/kcidb.json from DIR/result.json,
           then check them
       results.py --check DIR...   check DIR/kcidb.json and DIR/junit.xml
       results.py --self-test

The check applies kcidb-io's schema v5.0 (kcidb_io/schema/v05_00.py) to
the tests, then that ids are unique and JUnit holds the same results.
"""
import datetime
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import ktap
from farm_names import slugify

SUITE = "kselftest.sched_state"
ORIGIN = "sched_state"
STATUS = {"pass": "PASS", "skip": "SKIP", "fail": "FAIL"}
# kcidb_io/schema/v05_00.py: $defs/test's properties, their patterns
# (origin_id_pattern, origin_pattern, test_path_re, $defs/status, RFC 3339
# date-time)
DATE_TIME = r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$"
TEST_FIELDS = {
    "_timestamp": str, "build_id": str, "id": str, "origin": str,
    "environment": dict, "path": str, "comment": str, "log_url": str,
    "log_excerpt": str, "status": str, "number": dict, "waived": bool,
    "start_time": str, "duration": (int, float),
    "output_files": list, "misc": dict,
}
PATTERNS = {"id": r"^[a-z0-9_]+:.*$", "build_id": r"^[a-z0-9_]+:.*$",
            "origin": r"^[a-z0-9_]+$",
            "path": r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$",
            "status": r"^(FAIL|ERROR|MISS|PASS|DONE|SKIP)$",
            "_timestamp": DATE_TIME, "start_time": DATE_TIME}
TOP_FIELDS = {"version", "checkouts", "builds", "tests", "issues",
              "incidents"}
MAJOR, MINOR = 5, 0
LOG_EXCERPT_MAX = 16384


def make(tests, build_id, start, misc):
    """The KCIDB v5 document and the JUnit tree of a run's results: a test
    per harness result and per program (ERROR if its plan and results
    disagree); a JUnit testsuite per program."""
    kcidb = []
    suites = ET.Element("testsuites", name=SUITE)

    def entry(path, status, **names):
        kcidb.append({"id": f"{build_id}:{path}", "origin": ORIGIN,
                      "build_id": build_id, "path": path, "status": status,
                      "start_time": start, "misc": dict(misc, **names)})
        return kcidb[-1]
    for i, p in enumerate(tests):
        if p["depth"]:
            continue
        prog = p["name"]
        if prog.startswith("selftests:"):
            prog = prog.split(":")[-1].strip()
        suite = ET.SubElement(suites, "testsuite", name=f"{SUITE}.{prog}")
        children = [t for t in tests if t["parent"] == i]
        for t in children:
            name, st, diag = t["name"], STATUS[t["result"]], t["diagnostics"]
            e = entry(".".join([SUITE] + [slugify(part) or "_" for part
                                          in name.split(".")]),
                      st, name=name, program=prog)
            if st == "SKIP" and t["comment"]:
                e["comment"] = t["comment"]
            if diag and st != "PASS":
                e["log_excerpt"] = "\n".join(diag)[-LOG_EXCERPT_MAX:]
            cls, _, short = name.rpartition(".")
            case = ET.SubElement(suite, "testcase", name=short or name,
                                 classname=f"{SUITE}.{cls or prog}")
            if st == "SKIP":
                ET.SubElement(case, "skipped", message=e.get("comment", ""))
            elif st == "FAIL":
                ET.SubElement(case, "failure",
                              message="not ok").text = "\n".join(diag)
            if diag:
                ET.SubElement(case, "system-out").text = "\n".join(diag)
        st = STATUS[p["result"]]
        if p["planned"] is None or p["planned"] != p["children"]:
            st = "ERROR"
        n = Counter(t["result"] for t in children)
        for k, v in (("tests", len(children)), ("failures", n["fail"]),
                     ("errors", int(st == "ERROR")), ("skipped", n["skip"])):
            suite.set(k, str(v))
        entry(f"{SUITE}.{slugify(prog)}", st, name=prog)
    doc = {"version": {"major": MAJOR, "minor": MINOR}, "tests": kcidb}
    return doc, ET.ElementTree(suites)


def check_doc(doc):
    """Problems of a KCIDB document under schema v5.0's rules."""
    if not isinstance(doc, dict):
        return ["the document is not an object"]
    p = [f"top-level field {k!r} not in the schema"
         for k in sorted(set(doc) - TOP_FIELDS)]
    v = doc.get("version")
    if not isinstance(v, dict) or "major" not in v:
        p.append("no version.major")
    else:
        p += [f"version field {k!r} not in the schema"
              for k in sorted(set(v) - {"major", "minor"})]
        if v["major"] != MAJOR or isinstance(v["major"], bool):
            p.append(f"version.major is {v['major']!r}, not {MAJOR}")
        minor = v.get("minor", 0)
        if type(minor) is not int or not 0 <= minor <= MINOR:
            p.append(f"version.minor {minor!r} not in 0..{MINOR}")
    tests = doc.get("tests", [])
    if not isinstance(tests, list):
        return p + ["tests is not a list"]
    ids = {}
    for i, t in enumerate(tests):
        if not isinstance(t, dict):
            p.append(f"tests[{i}] is not an object")
            continue
        w = f"tests[{i}] ({t.get('path', '?')})"
        p += [f"{w}: lacks required {k!r}" for k in ("build_id", "id", "origin")
              if k not in t]
        for k, val in t.items():
            want = TEST_FIELDS.get(k)
            if want is None:
                p.append(f"{w}: field {k!r} not in the schema")
            elif not isinstance(val, want) or (isinstance(val, bool)
                                               and want is not bool):
                p.append(f"{w}: {k} has the wrong type")
            elif k in PATTERNS and not re.match(PATTERNS[k], val):
                p.append(f"{w}: {k} {val!r} does not match {PATTERNS[k]}")
        if len(t.get("log_excerpt", "")) > LOG_EXCERPT_MAX:
            p.append(f"{w}: log_excerpt over {LOG_EXCERPT_MAX} characters")
        if isinstance(t.get("id"), str):
            if t["id"] in ids:
                p.append(f"{w}: id {t['id']!r} repeats tests[{ids[t['id']]}]")
            ids.setdefault(t["id"], i)
    return p


def check_junit(root, doc):
    """Problems of the JUnit tree against the KCIDB document's results."""
    if root.tag != "testsuites":
        return [f"JUnit root is <{root.tag}>, not <testsuites>"]
    p, got = [], Counter({"PASS": 0, "SKIP": 0, "FAIL": 0})
    want = Counter(t.get("status") for t in doc.get("tests", [])
                   if "program" in t.get("misc", {}))
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
    p += [f"{got[st]} {st} in JUnit, {want[st]} in KCIDB"
          for st in sorted(set(got) | set(want), key=str) if got[st] != want[st]]
    return p


def check_dir(d):
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
    counts = Counter(t.get("status") for t in doc.get("tests", []))
    print(f"{d}: {len(doc.get('tests', []))} KCIDB tests ("
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=str))
          + f"), {len(p)} problem(s)")
    return p


def self_test():
    text = [
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
        "ok 2 selftests: sched_state: sched_state.sh hung_task"]
    doc, junit = make(ktap.parse(text)["tests"], "sched_state:mainline",
                      "2026-01-01T00:00:00+00:00", {})
    root = junit.getroot()
    short = ET.fromstring(ET.tostring(root))
    short.find("testsuite").remove(short.find("testsuite/testcase"))
    made = ([t["status"] for t in doc["tests"]],
            [t["path"] for t in doc["tests"]][-2:])
    want = (["PASS", "SKIP", "FAIL", "FAIL", "PASS", "PASS"],
            [f"{SUITE}.hung_task.uninterruptible.detector",
             f"{SUITE}.sched_state_sh_hung_task"])
    # (what, the problem expected, where in the document, the new value)
    edits = [
        ("no id", "lacks required 'id'", "tests.0.id", None),
        ("no origin", "lacks required 'origin'", "tests.1.origin", None),
        ("no build_id", "lacks required 'build_id'", "tests.2.build_id", None),
        ("a space in the path", "path 'kselftest.a b' does not match",
         "tests.0.path", "kselftest.a b"),
        ("an empty path part", "path 'kselftest..x' does not match",
         "tests.0.path", "kselftest..x"),
        ("status ok", "status 'ok'", "tests.0.status", "ok"),
        ("an upper-case origin", "origin 'Sched'", "tests.0.origin", "Sched"),
        ("an id without origin:", "does not match", "tests.0.id", "nocolon"),
        ("a field outside the schema", "'name' not in the schema",
         "tests.0.name", "x"),
        ("version 4", "version.major is 4", "version.major", 4),
        ("a repeated id", "repeats tests[0]", "tests.1.id",
         doc["tests"][0]["id"]),
        ("a bad start_time", "start_time 'yesterday' does not match",
         "tests.0.start_time", "yesterday"),
        ("a PASS turned SKIP in KCIDB only", "in JUnit", "tests.0.status",
         "SKIP"),
    ]
    cases = [("the statuses and paths made", None,
              [] if made == want else [f"made {made}"]),
             ("the run as made", None, check_doc(doc) + check_junit(root, doc))]
    for what, problem, path, v in edits:
        d = ktap.edited(doc, path, v)
        cases.append((what, problem, check_doc(d) + check_junit(root, d)))
    cases.append(("a test case missing from JUnit", "its test cases make",
                  check_doc(doc) + check_junit(short, doc)))
    return ktap.expect(cases)


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if argv[:1] == ["--check"] and argv[1:]:
        return ktap.verdict([x for d in argv[1:] for x in check_dir(d)],
                            f"results: {len(argv) - 1} run(s)")
    if len(argv) != 5 or argv[0] != "--kernel" or argv[2] != "--release":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kernel, release, d = argv[1], argv[3], argv[4]
    result = os.path.join(d, "result.json")
    with open(result) as f:
        tests = json.load(f)["tests"]
    start = datetime.datetime.fromtimestamp(
        os.path.getmtime(result), datetime.timezone.utc).isoformat()
    misc = {k: v for k, v in (("kernel", kernel), ("release", release)) if v}
    doc, junit = make(tests, f"{ORIGIN}:{kernel}" +
                      (f"-{release}" if release else ""), start, misc)
    ktap.write(os.path.join(d, "kcidb.json"), doc)
    ET.indent(junit)
    junit.write(os.path.join(d, "junit.xml"), encoding="utf-8",
                xml_declaration=True)
    return main(["--check", d])

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
