#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a VM run's results (vm.sh's result.json) as flat TAP 13: every
result, nested ones too, as a top-level line named by its path.  prove and
kunit.py parse read only a KTAP's top-level lines, and the runner's line for
sched_state.sh says "ok" whatever a nested test said: in this form a nested
failure fails both.

usage: flat-tap.py [--plant-failure] RESULT_JSON
  --plant-failure  turn the first passing nested result into a failure,
                   to show that the consumers then fail
"""
import json
import signal
import sys


def flat(tests, plant=False):
    lines = ["TAP version 13", f"1..{len(tests)}"]
    for i, t in enumerate(tests, 1):
        result = t["result"]
        if plant and result == "pass" and t["depth"] > 0:
            result, plant = "fail", False
        name = ": ".join(t["path"]).replace("#", "_")
        line = f"{'ok' if result in ('pass', 'skip') else 'not ok'} {i} {name}"
        if result == "skip":
            line += f" # SKIP {t.get('comment') or ''}".rstrip()
        lines.append(line)
    if plant:
        raise SystemExit("flat-tap.py: no passing nested result to plant a failure in")
    return lines


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet under | head
    plant = argv[:1] == ["--plant-failure"]
    args = argv[1:] if plant else argv
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tests = json.load(open(args[0]))["tests"]
    if not tests:
        print(f"flat-tap.py: no results in {args[0]}", file=sys.stderr)
        return 1
    print("\n".join(flat(tests, plant)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
