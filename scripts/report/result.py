#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A run's result.json (scripts/vm/vm.sh writes it): the one writer, and its
readers.

    result.py COMMAND ARGS...
    write OUT KIMAGE ARCH ACCEL SECONDS LIMIT TIMEDOUT [NAME=VALUE...]
    value RESULT KEY[.KEY...]
    matrix MATRIX NAME RELEASE RESULT RC
    tested MATRIX
    stress OUT
    summary RESULT
    farm-default RESULT
    host RESULT (CHILD_CHECKS in the environment)
    nobody OUT RC1 RC2 (CHILD_CHECKS in the environment)
"""
import json
import os
import re
import sys
import time

import ktap


def write(argv):
    """OUT KIMAGE ARCH ACCEL SECONDS LIMIT TIMEDOUT [NAME=VALUE...]: vm.sh's
    OUT/result.json from its files (ktap.tap, console.txt, dmesg.log,
    problems, reports, accepted), and its summary line; exit 1 if the run
    had a problem"""
    out, kimage, arch, accel, seconds, limit, timedout = argv[1:8]
    guest_env = dict(e.split('=', 1) for e in argv[8:])
    problems = [l.rstrip('\n') for l in open(f'{out}/problems')]
    tap = open(f'{out}/ktap.tap', errors='replace').read().splitlines()
    console = open(f'{out}/console.txt', errors='replace').read()

    def problem(text):
        print(f'vm.sh: {text}')
        problems.append(text)

    # the tests, the files the guest handed back and the TAP's own
    # problems: scripts/report/ktap.py, the one reader of the TAP
    parsed = ktap.parse(tap, files_dir=f'{out}/files', label='ktap.tap')
    for p in parsed['problems']:
        problem(p)
    tests = parsed['tests']

    def uptime(what):
        m = re.search(rf'SCHED_STATE_GUEST: {what}\b.*uptime=([0-9.]+)', console)
        return float(m[1]) if m else None
    booted, done = uptime('booted'), uptime('done')
    since = 'boot'
    if booted is None and uptime('then') is not None:
        booted, since = uptime('then'), 'its start'  # --then-cmd's part
    rc = re.search(r'SCHED_STATE_GUEST: done rc=([0-9]+)', console)
    def numbered(path):
        rows = []
        for l in open(path):
            n, _, text = l.rstrip('\n').partition(':')
            rows.append({'line': int(n), 'text': text})
        return rows
    reports, accepted = numbered(f'{out}/reports'), numbered(f'{out}/accepted')
    # the hung-task part: its marks in the kernel log (guest/suite.sh)
    marks = {}
    for n, l in enumerate(open(f'{out}/dmesg.log', errors='replace'), 1):
        m = re.fullmatch(r'(?:\[ *([0-9.]+)\] *)?SCHED_STATE_GUEST: '
                         r'hung_task (begin|end)\n?', l)
        if m and m[2] not in marks:
            marks[m[2]] = (n, float(m[1]) if m[1] else None)
    part = None
    if 'begin' in marks:
        part = {'dmesg_lines': [marks['begin'][0],
                                marks['end'][0] if 'end' in marks else None]}
    hung_secs = None
    if part and 'end' in marks and None not in (marks['begin'][1], marks['end'][1]):
        hung_secs = round(marks['end'][1] - marks['begin'][1], 2)
    r = {
        'kimage': kimage, 'arch': arch, 'accel': accel,
        'guest_rc': int(rc[1]) if rc else None,
        'timed_out': bool(timedout),
        'ok': not problems,
        'problems': problems,
        'counts': dict(parsed['counts'], reports=len(reports),
                       accepted=len(accepted)),
        'seconds': {'host': int(seconds), 'timeout': int(limit),
                    'guest_boot': booted,
                    'guest_run': round(done - booted, 2)
                    if booted is not None and done is not None else None,
                    'hung_task': hung_secs},
        'tests': tests,
        'kernel_reports': reports,
        'accepted_reports': accepted,
        'hung_task_part': part,
        'guest_env': guest_env,
        'files': parsed['files'], 'bad_files': parsed['bad_files'],
        'logs': {k: f'{out}/{v}' for k, v in (
            ('tap', 'ktap.tap'), ('dmesg', 'dmesg.log'),
            ('console', 'console.txt'), ('qemu', 'qemu.log'))},
    }
    ktap.write(f'{out}/result.json', r)
    c, secs = r['counts'], r['seconds']
    print(f"vm.sh: summary: kernel {kimage}, accel {accel}, {secs['host']} s on "
          'the host, ' + (f"{secs['guest_run']} s from {since} to done in the guest"
                          if secs['guest_run'] is not None else
                          'no boot-to-done time from the guest') +
          (f" (the hung-task program {secs['hung_task']} s)"
           if secs['hung_task'] is not None else '') +
          f", guest rc {r['guest_rc']}; tests: {c['top']} top-level, "
          f"{c['pass']} pass, {c['skip']} skip, {c['fail']} fail (nested "
          f"included); kernel reports: {c['reports']} ({c['accepted']} "
          'expected hung-task reports accepted); files: ' +
          (' '.join(f['name'] for f in r['files']) or 'none') +
          f"; result: {out}/result.json")
    sys.exit(0 if r['ok'] else 1)


def value(argv):
    """RESULT KEY[.KEY...]: one value (a list index is a KEY too), as JSON
    unless it is a string"""
    v = json.load(open(argv[1]))
    for k in argv[2].split('.'):
        v = v[int(k)] if isinstance(v, list) else v[k]
    print(v if isinstance(v, str) else json.dumps(v))


def matrix(argv):
    """MATRIX NAME RELEASE RESULT RC: NAME's entry in MATRIX (JSON, a run's
    counts per kernel: release, pass, skip, fail, ok, date)"""
    path, name, release, result, rc = argv[1:]
    c = json.load(open(result))['counts']
    try:
        m = json.load(open(path))
    except FileNotFoundError:
        m = {}
    m[name] = {'release': release, 'pass': c['pass'], 'skip': c['skip'],
               'fail': c['fail'], 'ok': rc == '0',
               'date': time.strftime('%Y-%m-%d', time.gmtime())}
    with open(path, 'w') as f:
        json.dump(m, f, indent=1)
        f.write('\n')


def tested(argv):
    """MATRIX: the kernels' last counts, dated, as the cover letter and make
    check print them"""
    try:
        m = json.load(open(argv[1]))
    except FileNotFoundError:
        print('Test results: no run recorded.')
        return
    dates = sorted({e['date'] for e in m.values()})
    print(f"Tested ({' to '.join(dict.fromkeys([dates[0], dates[-1]]))}): "
          "the suite's last run under QEMU, per kernel:\n")
    for name, e in m.items():
        print(f"  {name:12} {e['release']:28} {e['pass']:4} pass {e['skip']:4} "
              f"skip {e['fail']:4} fail" +
              ('' if e['ok'] else ' (run FAILED: see its vm.log)'))


def stress(argv):
    """OUT: the seed and the fuzz's and the lifecycle's results of a run of
    scripts/vm/guest/stress.sh (OUT/result.json, OUT/files/stress.json);
    exit 1, naming them, if any is missing or failed"""
    out = argv[1]
    want = {'sched_state_fuzz': ['bad requests', 'fuzz: ',
                                 'sanity after fuzz'],
            'sched_state_lifecycle': ['load/unload cycles: ',
                                      'rmmod with a request in flight: ',
                                      'SIGKILL at random points: ',
                                      'SIGKILL in each state: ',
                                      'parallel writers: ']}
    try:
        r = json.load(open(f'{out}/result.json'))
        stress = json.load(open(f'{out}/files/stress.json'))
    except (OSError, ValueError) as e:
        print(f'no stress results: {e}')
        sys.exit(1)
    print(f"seed {stress['seed']} (replay: STRESS_SEED={stress['seed']}), "
          f"{stress['inputs']} fuzz junk requests")
    missing = []
    for prog, names in want.items():
        tests = [t for t in r['tests'] if len(t['path']) >= 2 and
                 t['path'][-2] == prog]
        for name in names:
            got = [t for t in tests if t['name'].startswith(name)]
            for t in got:
                print(f"{prog}: {t['result']}: {t['name']}")
            if not got or any(t['result'] != 'pass' for t in got):
                missing.append(f"'{prog}: {name}'")
    if missing:
        print('missing or failed results: ' + ' '.join(missing))
        sys.exit(1)


def summary(argv):
    """RESULT: a run's times and counts, three lines"""
    r = json.load(open(argv[1]))
    c, s = r['counts'], r['seconds']
    print(f"boot-to-done: {s['guest_run']} s in the guest, {s['host']} s on the host")
    print(f"tests: {c['top']} top-level, {c['pass']} pass, {c['skip']} skip, "
          f"{c['fail']} fail (nested included)")
    print(f"kernel reports: {c['reports']} ({c['accepted']} expected hung-task "
          "reports accepted)")


def farm_default(argv):
    """RESULT: check.sh's farm run: the default run holds one program,
    sched_state.sh, and no hung_task result; the hung-task program's
    results are its own; no kernel report, every accepted hung-task
    report inside the hung-task part"""
    r = json.load(open(argv[1]))
    tests, bad = r['tests'], []
    default = 'selftests: sched_state: sched_state.sh'
    hung = default + ' hung_task'
    top = [t['name'] for t in tests if t['depth'] == 0]
    if top != [default, hung]:
        bad.append(f'top-level results {top}, not [{default!r}, {hung!r}]')
    under = lambda p: [t['name'] for t in tests
                       if t['depth'] >= 1 and t['path'][0] == p]
    farm, ht = under(default), under(hung)
    farm_hung = [n for n in farm if re.match(r'hung_task\.', n)]
    bad += [f'{n}: a hung_task result in the default run' for n in farm_hung]
    bad += [f'{n}: not a hung_task result, under {hung}' for n in ht
            if not re.match(r'hung_task\.', n)]
    if not ht:
        bad.append(f'no result under {hung}')
    c, part = r['counts'], r['hung_task_part'] or {'dmesg_lines': [None, None]}
    b, e = part['dmesg_lines']
    for a in r['accepted_reports']:
        if b is None or a['line'] < b or (e is not None and a['line'] > e):
            bad.append(f"accepted outside the hung-task part: dmesg.log:{a['line']}")
    print(f"the default run: {len(farm)} results, {len(farm_hung)} hung_task; the "
          f"hung-task program: {len(ht)} results; kernel reports: "
          f"{c['reports']}; accepted hung-task reports: {c['accepted']}, in "
          f"dmesg.log lines {b}..{e}")
    if not r['ok'] or c['reports']:
        bad.append(f"the run failed: {'; '.join(r['problems'])}")
    for x in bad:
        print('  ' + x)
    sys.exit(1 if bad else 0)


def host(argv):
    """RESULT (CHILD_CHECKS in the environment): check.sh's host kselftest:
    one passing sched_state.sh, the child checks pass, the rest skip with
    a reason"""
    r = json.load(open(argv[1]))
    tests, bad = r['tests'], list(r['problems'])
    top = [t for t in tests if t['depth'] == 0]
    if [(t['name'], t['result']) for t in top] != \
            [('selftests: sched_state: sched_state.sh', 'pass')]:
        bad.append('not one passing sched_state.sh: ' +
                   ', '.join(f"{t['name']} {t['result']}" for t in top))
    nested = [t for t in tests if t['depth'] == 1]
    if not top or top[0]['planned'] != len(nested):
        bad.append(f"{len(nested)} nested results, planned "
                   f"{top[0]['planned'] if top else None}")
    # the child checks need no module, nor the freezer's (they pass, or
    # skip without a v1 freezer): the others skip, saying why
    want = ['child.' + c for c in os.environ['CHILD_CHECKS'].split()]
    proc = [t for t in nested if t['result'] == 'pass' and t['name'] in want]
    if sorted(t['name'] for t in proc) != sorted(want):
        bad.append(f"child checks passed: {' '.join(t['name'] for t in proc)}; "
                   f"not all of {' '.join(want)}")
    for t in nested:
        if t in proc or (t['result'] == 'pass' and
                         re.fullmatch(r'freezer\.[A-Za-z_]+', t['name'])):
            continue
        if t['result'] != 'skip' or not re.fullmatch(r'[A-Za-z_.]+', t['name']) \
                or not re.match(r'[a-z]', t['comment'] or ''):
            bad.append(f"{t['name']}: {t['result']} {t['comment'] or ''}")
    c = r['counts']
    print(f"host kselftest: {len(nested)} nested results, {c['pass']} pass, "
          f"{c['skip']} skip, {c['fail']} fail")
    for b in bad:
        print('  ' + b)
    sys.exit(1 if bad else 0)


def nobody(argv):
    """OUT RC1 RC2 (CHILD_CHECKS in the environment): check.sh's non-root
    run: OUT/harness.json and OUT/wrapper.json pass the child checks and
    skip the rest with "needs ...", alike; OUT/calls is empty"""
    out, rc1, rc2 = argv[1:]
    want = {'child.' + c for c in os.environ['CHILD_CHECKS'].split()}
    bad, seen = [], {}
    for prog, rc in (('sched_state_test', rc1), ('sched_state.sh', rc2)):
        r = json.load(open(f'{out}/{"harness" if prog.endswith("test") else "wrapper"}.json'))
        tests = [t for t in r['tests'] if t['depth'] == 0]
        c = r['counts']
        if rc != '0':
            bad.append(f'{prog}: exit {rc}, not 0')
        if not tests or c['planned'] != len(tests):
            bad.append(f"{prog}: {len(tests)} results, planned {c['planned']}")
        bad += [f'{prog}: {p}' for p in r['problems']]
        passed = {t['name'] for t in tests if t['result'] == 'pass'}
        if passed != want:
            bad.append(f"{prog}: passed {' '.join(sorted(passed))}; not "
                       f"{' '.join(sorted(want))}")
        for t in tests:
            if t['name'] not in want and (t['result'] != 'skip' or
                                          not (t['comment'] or '').startswith('needs ')):
                bad.append(f"{prog}: {t['name']}: {t['result']} "
                           f"{t['comment'] or ''}, not a skip with its reason")
        seen[prog] = [(t['name'], t['result'], t['comment']) for t in tests]
        root = sum(t['comment'] == 'needs root' for t in tests)
        print(f"{prog} as nobody: exit {rc}, {c['pass']} pass, {c['skip']} skip "
              f"({root} 'needs root'), {c['fail']} fail")
    if seen.get('sched_state_test') != seen.get('sched_state.sh'):
        bad.append('sched_state.sh and sched_state_test differ in their results')
    calls = open(f'{out}/calls').read().split('\n')[:-1]
    bad += [f'sched_state.sh as nobody ran {c}' for c in calls]
    for b in bad:
        print('  ' + b)
    sys.exit(1 if bad else 0)


COMMANDS = {n.replace('_', '-'): f for n, f in (
    ('write', write), ('value', value), ('matrix', matrix), ('tested', tested),
    ('stress', stress),
    ('summary', summary), ('farm_default', farm_default),
    ('host', host), ('nobody', nobody))}

if __name__ == '__main__':
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[1:]))
