#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tooling's one KTAP (and TAP 13) reader: every script that wants a
run's results reads what this writes, never the TAP text itself.

    ktap.py [--log] TAP RESULT_JSON
        parse TAP (a run_kselftest.sh output), write its results to
        RESULT_JSON: ok, problems, counts (top, planned, pass, skip, fail)
        and tests, as scripts/vm/vm.sh's result.json has them; exit 1 unless
        ok.  --log: TAP is a log with other lines among the TAP lines
        (make kselftest's, whose runner prints no top-level version line
        or plan): the TAP begins at its first top-level version line if
        there is one, and neither is required.
    ktap.py --self-test
        prove that a nested failure (in a log too), a wrong plan, a missing
        version line and a file cut short each make the run not ok

scripts/vm/vm.sh imports it (parse()) to write a VM run's result.json, and
adds what the guest handed back and what the kernel logged.

Each result, at every depth ("# " per level of nesting), is one entry of
"tests", in the order of its line (a nested result comes before the
result it belongs to): depth, number, name, result (pass, skip, fail),
directive (SKIP, TODO, XFAIL or null), comment (the text after the
directive, or after "#"), diagnostics (the lines of its own level before
it, and deeper ones no nested result took, "#" and the prefix removed),
planned (the plan of its nested results, null if none), children (how many
nested results), parent (the index in "tests" of the result it belongs to,
null at the top level) and path (its parents' names, then its own).
"""
import json
import os
import re
import sys
import tempfile

RESULT = re.compile(r'^((?:# )*)(not )?ok ([0-9]+)\b(?: -)? ?(.*)$')
DIRECTIVE = re.compile(r'(SKIP|TODO|XFAIL)\b *(.*)', re.I)
PLAN = re.compile(r'^((?:# )*)1\.\.([0-9]+)')
VERSION = re.compile(r'^((?:# )*)(?:TAP version 13|KTAP version 1)$')
TOP_VERSION = re.compile(r'TAP version 13|KTAP version 1')
PREFIX = re.compile(r'^((?:# )*)')
# a file the guest hands back (scripts/vm/guest/tap.sh's hand_back)
FBEGIN = re.compile(r'^((?:# )*)# SCHED_STATE_FILE_BEGIN ([A-Za-z0-9._-]+)$')
FEND = re.compile(r'^((?:# )*)# SCHED_STATE_FILE_END ([A-Za-z0-9._-]+) ([0-9]+)$')


def depth_of(prefix):
    return len(prefix) // 2


def parse(lines, files_dir=None, log=False, label='the TAP'):
    """The results of TAP LINES: a dict with ok, problems, counts, tests
    and, with FILES_DIR, files and bad_files (what hand_back sent, written
    to FILES_DIR).  LOG: the lines are a log, the TAP among them (see
    --log).  LABEL: what the problems call the TAP."""
    problems, tests, files, bad_files = [], [], [], []
    pending = {}        # depth: results waiting for their parent
    diag = {}           # depth: [(line number, text)] not yet taken
    plans = {}          # depth: the plan of the results at that depth
    top_plans = []
    lines = [l.rstrip('\n') for l in lines]
    if log:
        start = next((i for i, l in enumerate(lines)
                      if TOP_VERSION.fullmatch(l)), None)
        lines = lines[start or 0:]
    if files_dir is not None:
        os.makedirs(files_dir, exist_ok=True)
        for f in os.listdir(files_dir):
            os.unlink(os.path.join(files_dir, f))
    cur = None
    for n, line in enumerate(lines):
        if cur:
            name, prefix, body = cur
            if line.startswith(prefix + '# |'):
                body.append(line[len(prefix) + 3:])
                continue
            m = FEND.match(line)
            cur = None
            if m and m[1] == prefix and m[2] == name:
                data = ''.join(l + '\n' for l in body)
                if len(data) == int(m[3]) + 1 and data.endswith('\n'):
                    data = data[:-1]
                if len(data.encode()) == int(m[3]):
                    if files_dir is not None:
                        path = os.path.join(files_dir, name)
                        with open(path, 'w') as f:
                            f.write(data)
                        files.append({'name': name, 'path': path,
                                      'bytes': int(m[3])})
                else:
                    bad_files.append(name)
                    problems.append(f'file {name}: {len(data.encode())} '
                                    f'bytes came, the guest sent {m[3]}')
                continue
            bad_files.append(name)
            problems.append(f'file {name}: cut short in the TAP')
        m = FBEGIN.match(line)
        if m:
            cur = (m[2], m[1], [])
            continue
        m = PLAN.match(line)
        if m:
            d = depth_of(m[1])
            plans[d] = int(m[2])
            if d == 0:
                top_plans.append(int(m[2]))
            continue
        if VERSION.match(line):
            continue
        m = RESULT.match(line)
        if not m:
            k = depth_of(PREFIX.match(line)[1])
            if k:
                diag.setdefault(k - 1, []).append((n, line[2 * k:].strip()))
            continue
        depth = depth_of(m[1])
        name, _, comment = m[4].partition('#')
        dm = DIRECTIVE.match(comment.strip())
        directive = dm[1].upper() if dm else None
        status = 'fail' if m[2] else 'skip' if directive == 'SKIP' else 'pass'
        # its own level's lines, and the deeper ones no result took
        mine = []
        for d in [d for d in diag if d >= depth]:
            mine += [(i, '# ' * (d - depth) + text) for i, text in diag.pop(d)]
        t = {'depth': depth, 'number': int(m[3]), 'name': name.strip(),
             'result': status, 'directive': directive,
             'comment': (dm[2] if dm else comment).strip() or None,
             'diagnostics': [text for _, text in sorted(mine)],
             'planned': plans.pop(depth + 1, None),
             'children': pending.pop(depth + 1, []), 'parent': None}
        for d in [d for d in pending if d > depth + 1]:
            del pending[d]
        for d in [d for d in plans if d > depth + 1]:
            del plans[d]
        t['index'] = len(tests)
        pending.setdefault(depth, []).append(t)
        tests.append(t)
    if cur:
        bad_files.append(cur[0])
        problems.append(f'file {cur[0]}: cut short in the TAP')

    # each test's path (its ancestors' names, then its own), parent and
    # number of children
    def walk(ts, path, parent):
        for t in ts:
            t['path'] = path + [t['name']]
            t['parent'] = parent
            walk(t['children'], t['path'], t['index'])
            t['children'] = len(t['children'])
    top = pending.get(0, [])
    walk(top, [], None)
    for d, ts in pending.items():
        if d:
            walk(ts, ['?'] * d, None)
    for t in tests:
        del t['index']

    if not log and (not lines or not TOP_VERSION.fullmatch(lines[0])):
        problems.append(f'{label} does not start with a TAP/KTAP version '
                        'line')
    if not log and not top_plans:
        problems.append(f'{label} has no top-level plan 1..N')
    if (top_plans or not log) and sum(top_plans) != len(top):
        problems.append(f'{label} plans {sum(top_plans)} tests but has '
                        f'{len(top)} top-level results')
    for t in tests:
        if t['result'] == 'fail':
            problems.append('test failed: ' + ' / '.join(t['path']))
    count = lambda what: sum(t['result'] == what for t in tests)
    r = {'ok': not problems, 'problems': problems,
         'counts': {'top': len(top), 'planned': sum(top_plans),
                    'pass': count('pass'), 'skip': count('skip'),
                    'fail': count('fail')},
         'tests': tests}
    if files_dir is not None:
        r['files'], r['bad_files'] = files, bad_files
    return r


def write(path, result):
    """RESULT as JSON at PATH, replaced at once."""
    with open(path + '.tmp', 'w') as f:
        json.dump(result, f, indent=1)
        f.write('\n')
    os.replace(path + '.tmp', path)


def self_test():
    good = ['TAP version 13', '1..1', '# selftests: sched_state: s.sh',
            '# TAP version 13', '# 1..2', '# # RUN a.b ...', '# ok 1 a.b',
            '# # needs X', '# ok 2 a.c # SKIP needs X',
            'ok 1 selftests: sched_state: s.sh']
    hand = ['# SCHED_STATE_FILE_BEGIN f.txt', '# |one', '# |two',
            '# SCHED_STATE_FILE_END f.txt 7']
    cases = [
        ('a passing run', good, None),
        ('a nested not ok', [l.replace('# ok 1 a.b', '# not ok 1 a.b')
                             for l in good],
         'test failed: selftests: sched_state: s.sh / a.b'),
        ('a top-level plan of 2', [l.replace('1..1', '1..2') for l in good],
         'plans 2 tests but has 1'),
        ('no version line', good[1:], 'does not start with'),
        ('a file cut short', good[:-1] + hand[:-1] + good[-1:],
         'file f.txt: cut short'),
        ('a file of the wrong size', good + hand[:-1] + [hand[-1] + '0'],
         'file f.txt: 8 bytes came'),
    ]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for what, lines, want in cases:
            r = parse(lines + hand, files_dir=d)
            got = r['problems']
            ok = any(want in p for p in got) if want else r['ok']
            print(f"--- {what}: expect {want or 'ok'}: "
                  f"{'as expected' if ok else 'NOT AS EXPECTED'}")
            for p in got:
                print('  ' + p)
            bad += not ok
        # make kselftest's log: no top-level version line or plan
        log = ['make: Entering directory', '  CC  s'] + good[2:]
        for what, lines, want in [
                ('a make kselftest log', log, True),
                ('a make kselftest log with a nested not ok',
                 [l.replace('# ok 1', '# not ok 1') for l in log], False)]:
            ok = parse(lines, log=True)['ok'] == want
            print(f"--- {what}: expect {'ok' if want else 'not ok'}: "
                  f"{'as expected' if ok else 'NOT AS EXPECTED'}")
            bad += not ok
        r = parse(good + hand, files_dir=d)
        a, s = r['tests'][0], r['tests'][2]
        facts = [(a['diagnostics'], ['RUN a.b ...']), (a['parent'], 2),
                 (r['tests'][1]['comment'], 'needs X'), (s['planned'], 2),
                 (s['children'], 2), (r['counts']['skip'], 1),
                 ([f['name'] for f in r['files']], ['f.txt']),
                 (open(f'{d}/f.txt').read(), 'one\ntwo')]
        for got, want in facts:
            if got != want:
                print(f'self-test: {got!r}, not {want!r}')
                bad += 1
    print(f"self-test: {'PASS' if not bad else f'FAIL, {bad} case(s)'}")
    return not bad


def main(argv):
    if argv == ['--self-test']:
        return 0 if self_test() else 1
    log = argv[:1] == ['--log']
    args = argv[1:] if log else argv
    if len(args) != 2 or args[0].startswith('-'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0], errors='replace') as f:
        r = parse(f.read().splitlines(), log=log,
                  label=os.path.basename(args[0]))
    r['logs'] = {'tap': os.path.abspath(args[0])}
    write(args[1], r)
    for p in r['problems']:
        print(f'ktap.py: {p}')
    c = r['counts']
    print(f"ktap.py: {args[0]}: {c['top']} top-level, {c['pass']} pass, "
          f"{c['skip']} skip, {c['fail']} fail (nested included): "
          f"{args[1]}")
    return 0 if r['ok'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
