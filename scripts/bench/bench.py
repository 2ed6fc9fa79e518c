#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's numbers (docs/bench.md):
    bench.py table NAME=JSON...    unlink1's samples, mmtests-style
    bench.py report OUT KERNEL...  OUT/../KERNEL/bench's report; the run in
                                   OUT/result.json (BENCH_KEEP=1: bench/'s too)
    bench.py cover [FILE]          the cover letter's lines (bench/result.json)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEPT = os.path.join(TOP, 'bench', 'result.json')
ORDER = ('x86_64', 'ppc64le', 'arm64')  # the commit's sections, then the rest
SEED = ('set_task_state_ptr', 'set_current_state')
STATS = ('Min', 'Hmean', 'Stddev', 'CoeffVar', 'Max')
LIVE_RE = re.compile(r'^# cpu (\d+) (\S+) +ns/call median +(\S+) min +(\S+) max +(\S+)', re.M)
ANSWER_RE = re.compile(r'^# cpu (\d+) (.+): (below resolution \([0-9.]+\)|'
                       r'[0-9.]+ ns/call more \(resolution [0-9.]+\))$', re.M)
MACHINE_RE = re.compile(r'^# ((?:emulated or virtualized|no hypervisor) .*)$', re.M)
CALLS_RE = re.compile(r'(\d+) calls x (\d+) repeats')


def stats(xs):
    """mmtests' rows of one task count's samples"""
    sd = statistics.pstdev(xs)
    return {'Min': min(xs), 'Hmean': statistics.harmonic_mean(xs), 'Stddev': sd,
            'CoeffVar': 100 * sd / statistics.mean(xs), 'Max': max(xs)}


def table(sets, only=None):
    """compare-kernels' table: sets is [(name, {task count: samples})]"""
    rows = [f"{'':31}" + ''.join(f'{n:>21}' for n, _ in sets)]
    st = [{t: stats(x) for t, x in s.items()} for _, s in sets]
    for stat in [only] if only else STATS:
        for t in sorted(st[0], key=int):
            b = st[0][t][stat]
            vs = [s[t][stat] if t in s else float('nan') for s in st]
            rows.append(f"{stat:9} {'unlink1-processes-' + t:21}" +
                        ''.join(f' {v:10.2f} ({100 * (v - b) / b if b else 0:7.2f}%)' for v in vs))
    return '\n'.join(rows)


def seed(text):
    """the commit's comparison: calls, repeats, Avg runtime in ms"""
    calls, repeats = map(int, CALLS_RE.search(text).groups())
    ns = {v: [int(m) for m in re.findall(rf'\b{v} (\d+)', text)] for v in SEED}
    avg = {v: round(statistics.mean(ns[v]) / 1e6, 3) for v in SEED}
    return {'calls': calls, 'repeats': repeats, 'avg_runtime_ms': avg,
            'ratio': round(avg[SEED[0]] / avg[SEED[1]], 3)}


def live(text, kernel):
    """sched_state_bench's summary, per CPU: ns/call and answers"""
    calls, repeats = map(int, CALLS_RE.search(text).groups())
    machine = MACHINE_RE.search(text)
    out = {'calls': calls, 'repeats': repeats, 'machine': machine[1] if machine else None,
           'cpus': {}, 'answers': {}}
    for m in LIVE_RE.finditer(text):
        out['cpus'].setdefault(m[1], {})[m[2]] = {
            'median': float(m[3]), 'min': float(m[4]), 'max': float(m[5])}
    for m in ANSWER_RE.finditer(text):
        out['answers'].setdefault(m[1], {})[m[2]] = m[3]
    if not out['cpus'] or not out['answers']:
        raise ValueError(f'{kernel}: live.tap: no summary line')
    return out


def gather(out, kernels):
    """the run as data, and each kernel's live path summary lines"""
    git = ['git', '-C', TOP, 'describe', '--always', '--dirty', '--abbrev=12']
    result = {'date': time.strftime('%Y-%m-%d', time.gmtime()),
              'quick': os.environ.get('QUICK', '0') == '1',
              'host': {'arch': os.uname().machine, 'cpus': os.cpu_count()},
              'commit': subprocess.run(git, capture_output=True, text=True).stdout.strip() or None,
              'kernels': []}
    lines = {}
    for k in kernels:
        d = f'{os.path.dirname(out)}/{k}/bench'
        vm = json.load(open(f'{d}/result.json'))
        if not vm['ok']:  # vm.sh's verdict: the programs, the kernel's log
            raise ValueError(f'{k}: the run failed: see {d}')
        u = json.load(open(f'{d}/files/unlink1.json'))
        text = open(f'{d}/files/live.tap').read()
        lines[k] = re.findall(r'^# (cpu \d+ (?!repeat).*)$', text, re.M)
        result['kernels'].append({
            'name': k, 'release': u['kernel'], 'arch': vm['arch'], 'accel': vm['accel'],
            'cpus': u['ncpus'], 'seed': seed(open(f'{d}/files/seed.txt').read()),
            'unlink1': {'series': 'unlink1-processes', 'warmup': u['warmup'],
                        'interval_ms': u['interval_ms'],
                        'tasks': {t: {'hmean': round(stats(s)['Hmean'], 2), 'samples': s}
                                  for t, s in u['tasks'].items()}},
            'live': live(text, k)})
    return result, lines


def report(result, lines):
    print("== commit 642fa448ae's benchmarks in QEMU, per architecture, and the\n"
          "== live path.  TCG runs each architecture's barriers, atomics and\n"
          "== stores through its own helpers: every figure, ratios included,\n"
          "== describes QEMU on this host, not a CPU.  Real figures come from\n"
          "== hardware or KVM.")
    arches = sorted(dict.fromkeys(k['arch'] for k in result['kernels']),
                    key=lambda a: ORDER.index(a) if a in ORDER else len(ORDER))
    for n, a in enumerate(arches, 1):
        ks = [k for k in result['kernels'] if k['arch'] == a]
        print(f"\n== {n}. {a.replace('x86_64', 'x86-64')} ==\n")
        for k in ks:
            print(f"{k['name']}: {k['release']}, {k['cpus']} CPUs, {a} under {k['accel'].upper()}")
        for k in ks:
            avg = k['seed']['avg_runtime_ms']
            print(f"{k['name']}, {k['seed']['calls']} calls:\n"
                  f"Avg runtime set_task_state():    {avg[SEED[0]]:.0f} msecs\n"
                  f"Avg runtime set_current_state(): {avg[SEED[1]]:.0f} msecs")
        sets = [(k['name'], {t: v['samples'] for t, v in k['unlink1']['tasks'].items()})
                for k in ks]
        print('\n' + table(sets, 'Hmean'))
        print('\nlive path, sched_state_bench: ns/call over the repeats, and the\n'
              'median of each per-repeat difference (or below resolution)')
        for k in ks:
            print(f"{k['name']}:\n" + '\n'.join(lines[k['name']]))
        if len(arches) == 1:
            print('\n' + table(sets))
    return len(arches)


def wrap(text, indent=''):
    return textwrap.wrap(text, 72, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False)


def cover(result):
    """the live path's answers; emulated timings stay in make bench's report"""
    ks = result['kernels']
    l0 = ks[0]['live']
    how = 'a short run' if result['quick'] else 'a full run'
    arches = ', '.join(dict.fromkeys(
        f"{k['arch']} under {k['accel'].upper()}, {k['cpus']} vCPUs" for k in ks))
    emulated = any(k['accel'] == 'tcg' for k in ks)
    what = ("emulated: every figure, ratios included, describes QEMU's translation, not a CPU"
            if emulated else "virtualized: figures describe the guest, not bare metal")
    cpu = min(l0['cpus'], key=int)
    lines = wrap(f"sched_state_bench ({how}; {result['date']}; {arches}, on a shared "
                 f"{result['host']['cpus']}-CPU {result['host']['arch']} host; {what}; cpu {cpu}, "
                 f"{l0['calls']} calls x {l0['repeats']} repeats): the median of the per-repeat "
                 "differences, or \"below resolution\" when no larger than the spread (max - min) "
                 "of either variant compared:")
    for k in ks:
        lv = k['live']
        lines += wrap(f"{k['name']} ({lv.get('machine') or '?'}):", '  ')
        for q, a in lv['answers'][cpu].items():
            line = f'    {q}: {a}'
            lines += [line] if len(line) <= 72 else [f'    {q}:', f'      {a}']
    lines += [''] + wrap(
        "Commit 642fa448ae's own two measurements (its set_task_state() loop and will-it-scale "
        "unlink1's Hmean, mmtests-style) were repeated on the same kernels; " +
        ("under emulation their figures describe QEMU, so they are not quoted here.  Real "
         "figures need real hardware." if emulated else "they are not part of this series."))
    return '\n'.join(lines) + '\n'


def main(argv):
    cmd, args = (argv + [''])[0], argv[1:]
    try:
        if cmd == 'table' and args:
            sets = [a.split('=', 1) for a in args]
            print(table([(n, json.load(open(f))['tasks']) for n, f in sets]))
        elif cmd == 'cover' and len(args) <= 1:
            sys.stdout.write(cover(json.load(open((args or [KEPT])[0]))))
        elif cmd == 'report' and len(args) >= 2:
            result, lines = gather(args[0], args[1:])
            files = [f'{args[0]}/result.json']
            if report(result, lines) == 1 and os.environ.get('BENCH_KEEP') == '1':
                files.append(KEPT)
            for f in files:
                open(f, 'w').write(json.dumps(result, indent=1) + '\n')
            print(f"\nthe run as data: {' and '.join(files)}", file=sys.stderr)
        else:
            sys.exit(__doc__)
    except (OSError, KeyError, ValueError, AttributeError) as e:
        sys.exit(f'bench.py: {e}')


if __name__ == '__main__':
    main(sys.argv[1:])
