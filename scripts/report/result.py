#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A run's result.json (docs/files.md): its one writer, and its readers.

usage: result.py write OUT KIMAGE ARCH ACCEL SECONDS LIMIT TIMEDOUT [NAME=VALUE...]
       result.py flat RESULT FLAT_TAP PLANTED_TAP
       result.py matrix MATRIX NAME RELEASE RESULT RC
       result.py tested MATRIX
       result.py stress OUT
       result.py farm-default RESULT
       result.py host RESULT              (CHILD_CHECKS in the environment)
       result.py nobody OUT RC1 RC2       (CHILD_CHECKS in the environment)
       result.py race OUT RUNS KERNEL MUTANT RUN_DIR CONTROL_RUN_DIR
"""
import os
import re
import sys
import time

import ktap

DEFAULT = 'selftests: sched_state: sched_state.sh'
# kernel log lines that count as a kernel report
REPORT = re.compile('|'.join((
    'WARNING:', 'BUG:', 'Oops', 'kernel BUG at', 'general protection fault', 'Kernel panic',
    'INFO: task .* blocked.* for more than',  # hung task ("blocked in I/O wait")
    'INFO: possible', 'INFO: .*detected stall', 'hard LOCKUP',  # lockdep, RCU, NMI watchdog
    '={40,}', 'KASAN:', 'UBSAN:', 'kmemleak:.*suspected memory leak',  # lockdep/KASAN banner
    'Call [Tt]race:', 'RIP:', 'Internal error:', 'Unable to handle kernel',  # arm's die(), faults
    'do not call blocking ops when !TASK_RUNNING')))


def write(out, kimage, arch, accel, seconds, limit, timedout, *env):
    # vm.sh's OUT/result.json from its files, and its summary line
    problems = [l.rstrip('\n') for l in open(f'{out}/problems')]
    tap = open(f'{out}/ktap.tap', errors='replace').read().splitlines()
    if timedout:
        problems.insert(0, f'TIMEOUT after {limit} s; running: {ktap.running(tap)}')
        print(f'vm.sh: {problems[0]}')
    console = open(f'{out}/console.txt', errors='replace').read()
    parsed = ktap.parse(tap, files_dir=f'{out}/files', label='ktap.tap')
    dmesg = (l.rstrip('\n') for l in open(f'{out}/dmesg.log', errors='replace', newline='\n'))
    reports = [{'line': n, 'text': l} for n, l in enumerate(dmesg, 1) if REPORT.search(l)]
    found = [f"kernel report: dmesg.log:{k['line']}:{k['text']}" for k in reports]
    for p in found + parsed['problems']:
        print(f'vm.sh: {p}')
    problems += found + parsed['problems']
    up = {k: float(v) for k, v in
          re.findall(r'SCHED_STATE_GUEST: (booted|done)\b.*uptime=([0-9.]+)', console)}
    rc = re.search(r'SCHED_STATE_GUEST: done rc=([0-9]+)', console)
    r = {'kimage': kimage, 'arch': arch, 'accel': accel, 'guest_rc': int(rc[1]) if rc else None,
         'timed_out': bool(timedout), 'ok': not problems, 'problems': problems,
         'counts': dict(parsed['counts'], reports=len(reports)),
         'seconds': {'host': int(seconds), 'timeout': int(limit), 'guest_boot': up.get('booted'),
                     'guest_run': round(up['done'] - up['booted'], 2) if len(up) == 2 else None},
         'tests': parsed['tests'], 'kernel_reports': reports,
         'guest_env': dict(e.split('=', 1) for e in env),
         'files': parsed['files'], 'bad_files': parsed['bad_files'],
         'logs': {k: f'{out}/{v}' for k, v in (('tap', 'ktap.tap'), ('dmesg', 'dmesg.log'),
                                               ('console', 'console.txt'), ('qemu', 'qemu.log'))}}
    ktap.write(f'{out}/result.json', r)
    c, secs = r['counts'], r['seconds']
    print(f"vm.sh: summary: kernel {kimage}, accel {accel}, {secs['host']} s on the host, " +
          (f"{secs['guest_run']} s from boot to done in the guest"
           if secs['guest_run'] is not None else 'no boot-to-done time from the guest') +
          f", guest rc {r['guest_rc']}; tests: {ktap.tally(c)}; kernel reports: {c['reports']}; "
          f"files: {' '.join(f['name'] for f in r['files']) or 'none'}; result: {out}/result.json")
    return 0 if r['ok'] else 1


def flat(result, flat_tap, planted_tap):
    """each result as a top-level TAP line named by its path, for prove and kunit.py parse;
    PLANTED_TAP: its first passing nested result failed"""
    tests = ktap.load(result)['tests']
    if not any(t['result'] == 'pass' and t['depth'] for t in tests):
        sys.exit(f'result.py: no passing nested result in {result}')
    for path, plant in ((flat_tap, False), (planted_tap, True)):
        lines = ['TAP version 13', f'1..{len(tests)}']
        for i, t in enumerate(tests, 1):
            st = t['result']
            if plant and st == 'pass' and t['depth']:
                st, plant = 'fail', False
            name = ': '.join(t['path']).replace('#', '_')
            skip = f" # SKIP {t['comment'] or ''}".rstrip() if st == 'skip' else ''
            lines.append(f"{'not ok' if st == 'fail' else 'ok'} {i} {name}{skip}")
        open(path, 'w').write('\n'.join(lines) + '\n')


def matrix(path, name, release, result, rc):
    # NAME's entry in MATRIX, the last counts per kernel
    c = ktap.load(result)['counts']
    m = ktap.load(path) if os.path.exists(path) else {}
    m[name] = {'release': release, 'pass': c['pass'], 'skip': c['skip'], 'fail': c['fail'],
               'ok': rc == '0', 'date': time.strftime('%Y-%m-%d', time.gmtime())}
    ktap.write(path, m)


def tested(path):
    # the kernels' last counts, dated, for the cover letter and make check
    if not os.path.exists(path):
        print('Test results: no run recorded.')
        return
    m = ktap.load(path)
    dates = sorted({e['date'] for e in m.values()})
    print(f"Tested ({' to '.join(dict.fromkeys([dates[0], dates[-1]]))}): "
          "the suite's last run under QEMU, per kernel:\n")
    for name, e in m.items():
        print(f"  {name:12} {e['release']:28} {e['pass']:4} pass {e['skip']:4} skip "
              f"{e['fail']:4} fail" + ('' if e['ok'] else ' (run FAILED: see its vm.log)'))


def stress(out):
    # the seed and the results of a guest/stress.sh run
    want = {'sched_state_fuzz': ['bad requests', 'fuzz: ', 'sanity after fuzz'],
            'sched_state_lifecycle': ['load/unload cycles: ', 'rmmod with a request in flight: ',
                                      'SIGKILL at random points: ', 'SIGKILL in each state: ',
                                      'parallel writers: ',
                                      'a harness timeout in the sleep fixture: ']}
    try:
        r, s = ktap.load(f'{out}/result.json'), ktap.load(f'{out}/files/stress.json')
    except (OSError, ValueError) as e:
        print(f'no stress results: {e}')
        return 1
    print(f"seed {s['seed']} (replay: STRESS_SEED={s['seed']}), {s['inputs']} fuzz junk requests")
    missing = []
    for prog, names in want.items():
        for name in names:
            got = [t for t in r['tests']
                   if t['path'][-2:-1] == [prog] and t['name'].startswith(name)]
            for t in got:
                print(f"{prog}: {t['result']}: {t['name']}")
            if not got or any(t['result'] != 'pass' for t in got):
                missing.append(f"'{prog}: {name}'")
    if missing:
        print('missing or failed results: ' + ' '.join(missing))
        return 1


def farm_default(result):
    # the default run holds sched_state.sh alone, no hung_task result nor kernel report
    r = ktap.load(result)
    top = [t['name'] for t in r['tests'] if t['depth'] == 0]
    hung = [t['name'] for t in r['tests'] if t['depth'] and t['name'].startswith('hung_task.')]
    bad = [] if top == [DEFAULT] else [f'top-level results {top}, not [{DEFAULT!r}]']
    bad += [f'{n}: a hung_task result in the default run' for n in hung]
    if not r['ok'] or r['counts']['reports']:
        bad.append(f"the run failed: {'; '.join(r['problems'])}")
    print(f"the default run: {len(r['tests']) - len(top)} results, {len(hung)} hung_task; "
          f"kernel reports: {r['counts']['reports']}")
    return ktap.verdict(bad)


# the checks that need neither root nor the module, beside child.*: each may pass or skip
FREE = (r'(call|jobctl|threads|delayed|report|switches|nr_running|sched_switch)\.[A-Za-z0-9_.]+'
        r'|global\.(dead_task_frees_stack|stat_processor)')


def children(tests, planned, reason, may_pass=FREE):
    """Problems unless the PLANNED TESTS are CHILD_CHECKS' passing and the rest skipping with
    a REASON (or passing or skipping with any reason, named as MAY_PASS says)"""
    want = sorted('child.' + c for c in os.environ['CHILD_CHECKS'].split())
    passed = sorted(t['name'] for t in tests if t['result'] == 'pass' and
                    not re.fullmatch(may_pass, t['name']))
    bad = [] if passed == want else [f"child checks passed: {' '.join(passed)}; "
                                     f"not {' '.join(want)}"]
    if not tests or planned != len(tests):
        bad.append(f'{len(tests)} results, planned {planned}')
    for t in tests:
        named = t['name'] in want or re.fullmatch(may_pass, t['name'])
        reasoned = re.fullmatch(r'[A-Za-z0-9_.]+', t['name']) and (
            re.match(reason, t['comment'] or '') or named and t['comment'])
        if not (t['result'] == 'pass' and named or t['result'] == 'skip' and reasoned):
            bad.append(f"{t['name']}: {t['result']} {t['comment'] or ''}, "
                       'not a skip with its reason')
    return bad


def host(result):
    # check.sh's host kselftest: one passing sched_state.sh, children() (a v1 freezer's may pass)
    r = ktap.load(result)
    tests, bad = r['tests'], list(r['problems'])
    top = [t for t in tests if t['depth'] == 0]
    if [(t['name'], t['result']) for t in top] != [(DEFAULT, 'pass')]:
        bad.append('not one passing sched_state.sh: ' +
                   ', '.join(f"{t['name']} {t['result']}" for t in top))
    nested = [t for t in tests if t['depth'] == 1]
    bad += children(nested, top[0]['planned'] if top else None, r'[a-z]',
                    rf'freezer2?\.[A-Za-z_]+|{FREE}')
    c = r['counts']
    print(f"host kselftest: {len(nested)} nested results, {c['pass']} pass, "
          f"{c['skip']} skip, {c['fail']} fail")
    return ktap.verdict(bad)


def nobody(out, rc1, rc2):
    # check.sh's non-root run: OUT/{harness,wrapper}.json alike, children(); OUT/calls empty
    bad, seen = [], []
    for prog, rc, f in (('sched_state_test', rc1, 'harness'), ('sched_state.sh', rc2, 'wrapper')):
        r = ktap.load(f'{out}/{f}.json')
        tests, c = [t for t in r['tests'] if t['depth'] == 0], r['counts']
        if rc != '0':
            bad.append(f'{prog}: exit {rc}, not 0')
        bad += [f'{prog}: {p}' for p in r['problems'] + children(tests, c['planned'], 'needs ')]
        seen.append([(t['name'], t['result'], t['comment']) for t in tests])
        root = sum(t['comment'] == 'needs root' for t in tests)
        print(f"{prog} as nobody: exit {rc}, {c['pass']} pass, {c['skip']} skip "
              f"({root} 'needs root'), {c['fail']} fail")
    if seen[0] != seen[1]:
        bad.append('sched_state.sh and sched_state_test differ in their results')
    bad += [f'sched_state.sh as nobody ran {c}' for c in open(f'{out}/calls').read().splitlines()]
    return ktap.verdict(bad)


LOST = re.compile(r'lost_wakeups:([0-9]+) of ([0-9]+) wakeups lost in ([0-9]+) ms$')


def race(out, runs, kernel, mutant, *dirs):
    """race-power.sh's runs of race.lost_wakeups, on the barrier mutant and the control."""
    doc, bad = {'check': 'race.lost_wakeups', 'kernel': kernel, 'runs': int(runs)}, []
    for key, d in zip(('mutant', 'control'), dirs):
        r = ktap.load(f'{d}/result.json')
        got = [{'lost': int(m[1]), 'rounds': int(m[2]), 'ms': int(m[3]), 'result': t['result']}
               for t in r['tests'] if t['name'] == 'race.lost_wakeups'
               and (m := next(filter(None, map(LOST.search, t['diagnostics'])), None))]
        caught, skipped = (sum(g['result'] == w for g in got) for w in ('fail', 'skip'))
        doc['arch'] = r['arch']
        doc[key] = {'accel': r['accel'], 'caught': caught,
                    'skipped': skipped, 'passed': len(got) - caught - skipped, 'runs': got}
        if len(got) != doc['runs'] or r['kernel_reports']:
            bad.append(f'{d}: {len(got)} of {runs} runs reported, '
                       f'{len(r["kernel_reports"])} kernel reports')
    doc['mutant']['name'] = os.path.basename(mutant)
    if doc['control']['caught']:
        bad.append(f"the control lost wakeups in {doc['control']['caught']} runs")
    m, c = doc['mutant'], doc['control']
    ms = m['runs'][0]['ms'] if m['runs'] else 0
    doc['summary'] = (f"without the barrier, {m['caught']} of {runs} runs of {ms} ms lost a "
                      f"wakeup ({m['skipped']} skipped: too few rounds); with it, "
                      f"{c['caught']} of {runs} ({c['skipped']} skipped); an {doc['arch']} "
                      f"guest under {m['accel']}: QEMU's timing on this host, not a CPU's")
    doc['date'] = time.strftime('%Y-%m-%d')
    ktap.write(out, doc)
    print(f"race-power: {doc['summary']}; {out}")
    return ktap.verdict(bad)


if __name__ == '__main__':
    cmd = sys.argv[1] if sys.argv[1:] else None
    if cmd not in re.findall(r'result\.py ([a-z-]+)', __doc__):  # usage's
        sys.exit(__doc__)
    sys.exit(globals()[cmd.replace('-', '_')](*sys.argv[2:]))
