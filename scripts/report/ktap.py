#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one KTAP (and TAP 13) reader: the other tools read what it writes.

usage: ktap.py [--log] TAP RESULT_JSON   TAP's results as in result.json (docs/files.md);
           exit 1 unless ok.  --log: TAP is a log with TAP among other lines, from its
           first top-level version line if any, needing neither that line nor a top-level plan
       ktap.py --self-test
"""
import copy
import json
import os
import re
import shutil
import sys
import tempfile

RESULT = re.compile(r'^((?:# )*)(not )?ok ([0-9]+)\b(?: -)? ?(.*)$')
DIRECTIVE = re.compile(r'(SKIP|TODO|XFAIL)\b *(.*)', re.I)
PLAN = re.compile(r'^((?:# )*)1\.\.([0-9]+)')
TOP_VERSION = re.compile(r'TAP version 13|KTAP version 1')
VERSION = re.compile(rf'^((?:# )*)(?:{TOP_VERSION.pattern})$')
PREFIX = re.compile(r'^((?:# )*)')
# a file the guest hands back (hand_back in scripts/vm/guest/tap.sh)
FBEGIN = re.compile(r'^((?:# )*)# SCHED_STATE_FILE_BEGIN ([A-Za-z0-9._-]+)$')
FEND = re.compile(r'^((?:# )*)# SCHED_STATE_FILE_END ([A-Za-z0-9._-]+) ([0-9]+)$')
# the runner's program line, the harness's RUN and OK/FAIL lines
RUNNING = re.compile(r'^(?:# )*# (?:selftests: (.+)|\s*RUN +(\S+) \.\.\.|'
                     r'\s*(?:OK|FAIL) +(\S+))$')


def parse(lines, files_dir=None, log=False, label='the TAP'):
    """ok, problems, counts and tests of TAP LINES (a list, no newlines); with FILES_DIR,
    also files and bad_files, the handed-back files there."""
    problems, tests, files, bad_files, top_plans = [], [], [], [], []
    pending = {}        # depth: results waiting for their parent
    diag = []           # (depth, text) of the lines no result took yet, in order
    plans = {}          # depth: the plan of the results at that depth
    if log:
        lines = lines[next((i for i, l in enumerate(lines) if TOP_VERSION.fullmatch(l)), 0):]
    if files_dir is not None:
        shutil.rmtree(files_dir, ignore_errors=True)
        os.makedirs(files_dir)
    cur = None
    for line in lines + ['']:    # '': the end cuts a file short
        if cur:
            name, prefix, body = cur
            if line.startswith(prefix + '# |'):
                body.append(line[len(prefix) + 3:])
                continue
            m, cur = FEND.match(line), None
            if m and m[1] == prefix and m[2] == name:
                data, size = ''.join(l + '\n' for l in body), int(m[3])
                if len(data) == size + 1:       # it ended without a newline
                    data = data[:-1]
                if len(data.encode()) != size:
                    bad_files.append(name)
                    problems.append(f'file {name}: {len(data.encode())} bytes came, '
                                    f'the guest sent {size}')
                elif files_dir is not None:
                    path = os.path.join(files_dir, name)
                    open(path, 'w').write(data)
                    files.append({'name': name, 'path': path, 'bytes': size})
                continue
            bad_files.append(name)
            problems.append(f'file {name}: cut short in the TAP')
        if m := FBEGIN.match(line):
            cur = (m[2], m[1], [])
            continue
        if m := PLAN.match(line):
            plans[len(m[1]) // 2] = int(m[2])
            if not m[1]:
                top_plans.append(int(m[2]))
            continue
        if VERSION.match(line):
            continue
        if not (m := RESULT.match(line)):
            if k := len(PREFIX.match(line)[1]) // 2:
                diag.append((k - 1, line[2 * k:].strip()))
            continue
        depth = len(m[1]) // 2
        name, _, comment = m[4].partition('#')
        dm = DIRECTIVE.match(comment.strip())
        directive = dm[1].upper() if dm else None
        status = 'fail' if m[2] else 'skip' if directive == 'SKIP' else 'pass'
        # its own level's lines, and the deeper ones no result took
        mine = ['# ' * (d - depth) + text for d, text in diag if d >= depth]
        diag = [(d, text) for d, text in diag if d < depth]
        children = pending.pop(depth + 1, [])
        for c in children:
            c['parent'] = len(tests)
        t = {'depth': depth, 'number': int(m[3]), 'name': name.strip(), 'result': status,
             'directive': directive, 'comment': (dm[2] if dm else comment).strip() or None,
             'diagnostics': mine,
             'planned': plans.pop(depth + 1, None), 'children': len(children), 'parent': None}
        pending = {d: pending[d] for d in pending if d <= depth + 1}
        plans = {d: plans[d] for d in plans if d <= depth + 1}
        pending.setdefault(depth, []).append(t)
        tests.append(t)

    # each result's path: its parents' names (a parent comes after its children), then its own
    for t in reversed(tests):
        p = t['parent']
        t['path'] = (['?'] * t['depth'] if p is None else tests[p]['path']) + [t['name']]
    top = pending.get(0, [])

    if not log and (not lines or not TOP_VERSION.fullmatch(lines[0])):
        problems.append(f'{label} does not start with a TAP/KTAP version line')
    if not log and not top_plans:
        problems.append(f'{label} has no top-level plan 1..N')
    if (top_plans or not log) and sum(top_plans) != len(top):
        problems.append(f'{label} plans {sum(top_plans)} tests but has {len(top)} top-level '
                        'results')
    problems += ['test failed: ' + ' / '.join(t['path']) for t in tests if t['result'] == 'fail']
    counts = dict({'top': len(top), 'planned': sum(top_plans)},
                  **{w: sum(t['result'] == w for t in tests) for w in ('pass', 'skip', 'fail')})
    r = {'ok': not problems, 'problems': problems, 'counts': counts, 'tests': tests}
    if files_dir is not None:
        r['files'], r['bad_files'] = files, bad_files
    return r


def running(lines):
    """The program, and the harness test in it, a cut-short TAP was in."""
    prog = test = None
    for m in filter(None, map(RUNNING.match, lines)):
        if m[1]:
            prog, test = m[1], None
        elif m[2]:
            test = m[2]
        elif m[3] == test:
            test = None
    if prog is None:
        return 'no kselftest program had started'
    return prog + (f', test {test}' if test else '')


# the report tools' shared helpers
def tally(c):
    return f"{c['top']} top-level, {c['pass']} pass, {c['skip']} skip, {c['fail']} fail " \
        "(nested included)"


def load(path):
    return json.load(open(path))


def write(path, result):     # replaced at once
    with open(path + '.tmp', 'w') as f:
        f.write(json.dumps(result, indent=1) + '\n')
    os.replace(path + '.tmp', path)


def edited(doc, keys, value):
    """A copy of DOC, its item at KEYS ("a.0.b") set to VALUE (None: removed)."""
    obj = doc = copy.deepcopy(doc)
    *parents, last = keys.split('.')
    for k in parents:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    if value is None:
        obj.pop(last)
    else:
        obj[last] = value
    return doc


def verdict(problems, what=None):
    """Print PROBLEMS, then, with WHAT, its verdict; 1 if any, else 0."""
    for p in problems:
        print('  ' + p)
    if what:
        print(f'{what}: ' + (f'FAIL, {len(problems)} problem(s)' if problems else 'PASS'))
    return 1 if problems else 0


def expect(cases):
    """The self-tests' one verdict: in each (what, want, problems) case, some problem must
    hold WANT, or (WANT None) there must be none."""
    bad = []
    for what, want, got in cases:
        ok = any(want in x for x in got) if want else not got
        print(f"--- {what}: expect {want or 'no problem'}: "
              f"{'as expected' if ok else 'NOT AS EXPECTED'}")
        verdict(got)
        bad += [] if ok else [f'not as expected: {what}']
    return verdict(bad, 'self-test')


def self_test():
    good = ['TAP version 13', '1..1', '# selftests: sched_state: s.sh', '# TAP version 13',
            '# 1..2', '# # RUN a.b ...', '# ok 1 a.b', '# # needs X', '# ok 2 a.c # SKIP needs X',
            'ok 1 selftests: sched_state: s.sh']
    hand = ['# SCHED_STATE_FILE_BEGIN f.txt', '# |one', '# |two', '# SCHED_STATE_FILE_END f.txt 7']
    log = ['make: Entering directory', '  CC  s'] + good[2:]
    with tempfile.TemporaryDirectory() as d:
        r = parse(good + hand, files_dir=d)
        a, s = r['tests'][0], r['tests'][2]
        facts = [(a['diagnostics'], ['RUN a.b ...']), (a['parent'], 2),
                 (r['tests'][1]['comment'], 'needs X'), (s['planned'], 2), (s['children'], 2),
                 (r['counts']['skip'], 1), ([f['name'] for f in r['files']], ['f.txt']),
                 (open(f'{d}/f.txt').read(), 'one\ntwo')]

        def p(lines):
            return parse(lines + hand, files_dir=d)['problems']
        return expect([
            ('a passing run', None, p(good)),
            ('its parsed fields', None,
             [f'{got!r}, not {want!r}' for got, want in facts if got != want]),
            ('a nested not ok', 'test failed: selftests: sched_state: s.sh / a.b',
             p([l.replace('# ok 1', '# not ok 1') for l in good])),
            ('a top-level plan of 2', 'plans 2 tests but has 1',
             p([l.replace('1..1', '1..2') for l in good])),
            ('no version line', 'does not start with', p(good[1:])),
            ('a file cut short', 'file f.txt: cut short', p(good[:-1] + hand[:-1] + good[-1:])),
            ('a file of the wrong size', 'file f.txt: 8 bytes came',
             p(good + hand[:-1] + [hand[-1] + '0'])),
            ('a make kselftest log', None, parse(log, log=True)['problems'])])


def main(argv):
    if argv == ['--self-test']:
        return self_test()
    log = argv[:1] == ['--log']
    args = argv[1:] if log else argv
    if len(args) != 2 or args[0].startswith('-'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0], errors='replace') as f:
        r = parse(f.read().splitlines(), log=log, label=os.path.basename(args[0]))
    r['logs'] = {'tap': os.path.abspath(args[0])}
    write(args[1], r)
    for p in r['problems']:
        print(f'ktap.py: {p}')
    print(f"ktap.py: {args[0]}: {tally(r['counts'])}: {args[1]}")
    return 0 if r['ok'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
