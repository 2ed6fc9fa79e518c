#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A run's results as dashboards and CI farms name them (docs/check.md).

usage: results.py --kernel NAME --release R DIR   DIR/kcidb.json, junit.xml of its result.json
       results.py --check DIR...   kcidb.json under KCIDB v5.0's rules, junit.xml agreeing
       results.py --names RESULT_JSON...   the names Linaro's parse-output.py makes, checked
       results.py --self-test
"""
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone

import ktap

SUITE = "kselftest.sched_state"
ORIGIN = "sched_state"
MAX_LEN = 100
# kcidb_io/schema/v05_00.py's $defs/test: its properties, their patterns, $defs/status
DATE_TIME = r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$"
TEST_FIELDS = {"_timestamp": str, "build_id": str, "id": str, "origin": str, "environment": dict,
               "path": str, "comment": str, "log_url": str, "log_excerpt": str, "status": str,
               "number": dict, "waived": bool, "start_time": str, "duration": (int, float),
               "output_files": list, "misc": dict}
PATTERNS = {"id": r"^[a-z0-9_]+:.*$", "build_id": r"^[a-z0-9_]+:.*$", "origin": r"^[a-z0-9_]+$",
            "path": r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$",
            "status": r"^(FAIL|ERROR|MISS|PASS|DONE|SKIP)$",
            "_timestamp": DATE_TIME, "start_time": DATE_TIME}
TOP_FIELDS = {"version", "checkouts", "builds", "tests", "issues", "incidents"}
MAJOR, MINOR = 5, 0
VERSIONS = {"major": [MAJOR], "minor": list(range(MINOR + 1))}
LOG_EXCERPT_MAX = 16384


def slugify(s):
    # as parse-output.py slugs a name
    s = re.sub(r"\[\d{1,5}\]", "", s)
    s = re.sub(r"(^_|_$)", "", re.sub(r"[^A-Za-z0-9_-]+", "_", s))
    return re.sub(r"_-", "__", s)


def make(tests, build_id, start, misc):
    """The KCIDB v5 document (a program is ERROR if plan and results disagree), JUnit tree"""
    kcidb = []
    suites = ET.Element("testsuites", name=SUITE)

    def entry(path, status, **names):
        kcidb.append({"id": f"{build_id}:{path}", "origin": ORIGIN, "build_id": build_id,
                      "path": path, "status": status, "start_time": start,
                      "misc": dict(misc, **names)})
        return kcidb[-1]
    for i, p in enumerate(tests):
        if p["depth"]:
            continue
        prog = p["name"].split(":")[-1].strip() if p["name"].startswith("selftests:") else p["name"]
        children = [t for t in tests if t["parent"] == i]
        n = Counter(t["result"] for t in children)
        status = "ERROR" if p["planned"] != p["children"] else p["result"].upper()
        suite = ET.SubElement(suites, "testsuite", name=f"{SUITE}.{prog}", tests=str(len(children)),
                              failures=str(n["fail"]), errors=str(int(status == "ERROR")),
                              skipped=str(n["skip"]))
        for t in children:
            name, st, diag = t["name"], t["result"].upper(), t["diagnostics"]
            e = entry(".".join([SUITE] + [slugify(part) or "_" for part in name.split(".")]),
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
                ET.SubElement(case, "failure", message="not ok").text = "\n".join(diag)
            if diag:
                ET.SubElement(case, "system-out").text = "\n".join(diag)
        entry(f"{SUITE}.{slugify(prog)}", status, name=prog)
    return {"version": {"major": MAJOR, "minor": MINOR}, "tests": kcidb}, ET.ElementTree(suites)


def check_doc(doc):
    """Problems of a KCIDB document of tests under schema v5.0's rules."""
    if not isinstance(doc, dict):
        return ["the document is not an object"]
    p = [f"top-level field {k!r} not in the schema" for k in sorted(set(doc) - TOP_FIELDS)]
    if not isinstance(v := doc.get("version"), dict) or "major" not in v:
        p.append("no version.major")
    else:
        p += [f"version.{k} is {x!r}, not one of {VERSIONS.get(k, [])}" for k, x in v.items()
              if type(x) is not int or x not in VERSIONS.get(k, [])]
    if not isinstance(tests := doc.get("tests"), list) or not tests:
        return p + ["no list of tests"]
    ids = {}
    for i, t in enumerate(tests):
        if not isinstance(t, dict):
            p.append(f"tests[{i}] is not an object")
            continue
        w = f"tests[{i}] ({t.get('path', '?')})"
        p += [f"{w}: lacks required {k!r}" for k in ("build_id", "id", "origin") if k not in t]
        for k, val in t.items():
            if (want := TEST_FIELDS.get(k)) is None:
                p.append(f"{w}: field {k!r} not in the schema")
            elif not isinstance(val, want) or (isinstance(val, bool) and want is not bool):
                p.append(f"{w}: {k} has the wrong type")
            elif k in PATTERNS and not re.match(PATTERNS[k], val):
                p.append(f"{w}: {k} {val!r} does not match {PATTERNS[k]}")
        if len(t.get("log_excerpt", "")) > LOG_EXCERPT_MAX:
            p.append(f"{w}: log_excerpt over {LOG_EXCERPT_MAX} characters")
        if isinstance(t.get("id"), str) and ids.setdefault(t["id"], i) != i:
            p.append(f"{w}: id {t['id']!r} repeats tests[{ids[t['id']]}]")
    return p


def check_junit(root, doc):
    """Problems of the JUnit tree against the KCIDB document's results."""
    if root.tag != "testsuites":
        return [f"JUnit root is <{root.tag}>, not <testsuites>"]
    p, got = [], Counter()
    want = Counter(t.get("status") for t in doc.get("tests", []) if "program" in t.get("misc", {}))
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        n = {"tests": len(cases), "skipped": sum(c.find("skipped") is not None for c in cases),
             "failures": sum(c.find("failure") is not None for c in cases)}
        for k, v in n.items():
            if suite.get(k) != str(v):
                p.append(f"JUnit {suite.get('name')}: {k}={suite.get(k)}, its test cases make {v}")
        got.update(SKIP=n["skipped"], FAIL=n["failures"],
                   PASS=n["tests"] - n["skipped"] - n["failures"])
    p += [f"{got[st]} {st} in JUnit, {want[st]} in KCIDB"
          for st in sorted(set(got) | set(want), key=str) if got[st] != want[st]]
    return p


def check_dir(d):
    try:
        doc = ktap.load(os.path.join(d, "kcidb.json"))
        root = ET.parse(os.path.join(d, "junit.xml")).getroot()
    except (OSError, ValueError, ET.ParseError) as e:
        return [f"{d}: {e}"]
    p = [f"{d}/kcidb.json: {x}" for x in check_doc(doc)]
    p += [f"{d}/junit.xml: {x}" for x in check_junit(root, doc)]
    counts = Counter(t.get("status") for t in doc.get("tests", []))
    print(f"{d}: {len(doc.get('tests', []))} KCIDB tests (" +
          ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=str)) +
          f"), {len(p)} problem(s)")
    return p


def flatten(tests, parent=None, prefix="", base_prefix=""):
    """(farm name, that less skip reasons, test or None at the top) per result, children first"""
    out = []
    for i, t in enumerate(tests):
        if t["parent"] != parent or (parent is None and t["depth"]):
            continue
        desc = t["name"].removeprefix("selftests:").strip()
        full = f"{desc} {t['comment']}" if t["result"] == "skip" and t["comment"] else desc
        name = prefix + (slugify(full) or "<unknown>")
        base = base_prefix + (slugify(desc) or "<unknown>")
        out += flatten(tests, i, name + "_", base + "_")
        out.append((name, base, None if parent is None else desc))
    return out


def names(runs):
    """Problems of the farm names across runs, (label, tests) each."""
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
        print(f"{label}: {len(flat)} results, longest name {longest}, {len(found)} problem(s)")
    union = set().union(*bases.values())
    for label, b in bases.items():
        problems += [f"{label}: lacks {n}" for n in sorted(union - b)]
    ktap.verdict(problems, f"names: {len(runs)} file(s), {len(union)} names")
    return problems


def tap(*programs):
    """The tests of a run_kselftest.sh output: (program, its results) each."""
    lines = ["TAP version 13", f"1..{len(programs)}"]
    for n, (program, tests) in enumerate(programs, 1):
        lines += [f"# selftests: sched_state: {program}", "# TAP version 13",
                  f"# 1..{sum(not t.startswith('#') for t in tests)}"]
        lines += [f"# {t}" for t in tests] + [f"ok {n} selftests: sched_state: {program}"]
    return ktap.parse(lines)["tests"]


def self_test():
    sh = "sched_state.sh"
    tests = tap((sh, ["ok 1 child.busy_loop_is_R", "#      SKIP      needs CONFIG_PREEMPT_RT",
                      "ok 2 global.rtlock_keeps_wakeup # SKIP needs CONFIG_PREEMPT_RT",
                      "# sched_state_test.c:42:Expected 1 (1) == seen (0)",
                      "not ok 3 race.lost_wakeups"]),
                (sh + " hung_task", ["ok 1 hung_task.uninterruptible.detector"]))
    tests[3]["result"] = "fail"     # sched_state.sh's exit 1
    doc, junit = make(tests, "sched_state:mainline", "2026-01-01T00:00:00+00:00", {})
    root = junit.getroot()
    short = ET.fromstring(ET.tostring(root))
    short.find("testsuite").remove(short.find("testsuite/testcase"))
    made = ([t["status"] for t in doc["tests"]], [t["path"] for t in doc["tests"]][-2:])
    want = (["PASS", "SKIP", "FAIL", "FAIL", "PASS", "PASS"],
            [f"{SUITE}.hung_task.uninterruptible.detector", f"{SUITE}.sched_state_sh_hung_task"])

    def bad(keys=None, v=None, junit=root):
        d = ktap.edited(doc, keys, v) if keys else doc
        return check_doc(d) + check_junit(junit, d)

    good = ["ok 1 child.busy_loop_is_R", "ok 2 kthread.idle.stops",
            "ok 3 global.rtlock_keeps_wakeup # SKIP needs CONFIG_PREEMPT_RT"]
    passed = good[:2] + ["ok 3 global.rtlock_keeps_wakeup"]
    hung = (sh + " hung_task", ["ok 1 hung_task.uninterruptible.detector",
                                "ok 2 hung_task.killable.detector"])

    def files(*runs):
        return names([(f"file{i}", r) for i, r in enumerate(runs, 1)])
    return ktap.expect([
        ("the statuses and paths made", None, [] if made == want else [f"made {made}"]),
        ("the run as made", None, bad()),
        ("no id", "lacks required 'id'", bad("tests.0.id", None)),
        ("an empty path part", "path 'a..x' does not match", bad("tests.0.path", "a..x")),
        ("status ok", "status 'ok'", bad("tests.0.status", "ok")),
        ("an upper-case origin", "origin 'Sched'", bad("tests.0.origin", "Sched")),
        ("an id without origin:", "does not match", bad("tests.0.id", "nocolon")),
        ("a field outside the schema", "'name' not in the schema", bad("tests.0.name", "x")),
        ("version 4", "version.major is 4", bad("version.major", 4)),
        ("a repeated id", "repeats tests[0]", bad("tests.1.id", doc["tests"][0]["id"])),
        ("a bad start_time", "start_time 'x' does not match", bad("tests.0.start_time", "x")),
        ("a PASS turned SKIP in KCIDB only", "in JUnit", bad("tests.0.status", "SKIP")),
        ("a test case missing from JUnit", "its test cases make", bad(junit=short)),
        ("names: one pass, one skip: the same names", None,
         files(tap((sh, good), hung), tap((sh, passed), hung))),
        ("names: a hung_task result in both programs", "reported 2 times",
         files(tap((sh, good + hung[1][:1]), hung))),
        ("names: a test twice in one program", "_dup2", files(tap((sh, good + good[:1])))),
        ("names: one over 100 characters", "113 characters",
         files(tap((sh, good + ["ok 4 kthread." + "x" * 60 + " # SKIP module not loaded"])))),
        ("names: one only one file has",
         "file2: lacks sched_state_sched_state_sh_kthread_idle_stops",
         files(tap((sh, good)), tap((sh, good[:1] + good[2:]))))])


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if argv[:1] == ["--check"] and argv[1:]:
        return ktap.verdict([x for d in argv[1:] for x in check_dir(d)],
                            f"results: {len(argv) - 1} run(s)")
    if argv[:1] == ["--names"] and argv[1:]:
        return 1 if names([(p, ktap.load(p)["tests"]) for p in argv[1:]]) else 0
    if len(argv) != 5 or argv[0] != "--kernel" or argv[2] != "--release":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kernel, release, d = argv[1], argv[3], argv[4]
    result = os.path.join(d, "result.json")
    start = datetime.fromtimestamp(os.path.getmtime(result), timezone.utc).isoformat()
    misc = {k: v for k, v in (("kernel", kernel), ("release", release)) if v}
    doc, junit = make(ktap.load(result)["tests"],
                      f"{ORIGIN}:{kernel}" + (f"-{release}" if release else ""), start, misc)
    ktap.write(os.path.join(d, "kcidb.json"), doc)
    ET.indent(junit)
    junit.write(os.path.join(d, "junit.xml"), encoding="utf-8", xml_declaration=True)
    return main(["--check", d])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
