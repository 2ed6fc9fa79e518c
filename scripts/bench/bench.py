#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's numbers: its report, the run as data, the cover's lines.

    bench.py table NAME=JSON...     unlink1's samples (scripts/bench/unlink1.c)
                                    as mmtests' compare-kernels prints them:
                                    Min, Hmean, Stddev, CoeffVar, Max per task
                                    count, the first set the baseline
    bench.py report OUT KERNEL...   the report, one section per arch, of what
                                    each KERNEL's guest handed back in OUT
                                    (KERNEL-seed.txt, -live.tap,
                                    -unlink1.json; OUT/../KERNEL/bench/
                                    result.json is vm.sh's), and the run as
                                    data in OUT/result.json, kept in
                                    bench/result.json (below)
    bench.py cover [FILE]           the cover letter's lines, from FILE
                                    (bench/result.json)

bench/result.json is committed; scripts/report/patches.sh puts its cover
lines in the cover letter.  A run of make bench on its default kernels (no
QUICK=1, BENCH_KERNELS=, ARCH= or KIMAGE=) keeps its data there, as does
one arch's run with BENCH_KEEP=1; never a run with BENCH_KEEP=0 or a
failed kernel (BENCH_FAILED=1): the cover compares one run's kernels,
within one arch.
"""
import json
import os
import platform
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
LIVE_RE = re.compile(r'^# cpu (\d+) (\S+) +ns/call median +(\S+) min +(\S+) '
                     r'max +(\S+)', re.M)
RES_RE = re.compile(r'^# cpu (\d+) resolution, [^:]*: (\S+) ns/call$', re.M)
ANSWER_RE = re.compile(r'^# cpu (\d+) (.+): (below resolution|'
                       r'[0-9.]+ ns/call (?:more|less))$', re.M)
MACHINE_RE = re.compile(r'^# ((?:emulated or virtualized|no hypervisor) .*)$', re.M)
CALLS_RE = re.compile(r'(\d+) calls x (\d+) repeats')


def stats(xs):
    """mmtests' rows of one task count's samples"""
    sd = statistics.pstdev(xs)
    return {'Min': min(xs), 'Hmean': statistics.harmonic_mean(xs), 'Stddev': sd,
            'CoeffVar': 100 * sd / statistics.mean(xs), 'Max': max(xs)}


def table(sets, only=None):
    """compare-kernels' table: sets is [(name, unlink1 JSON)]"""
    rows = [f"{'':31}" + ''.join(f'{n:>21}' for n, _ in sets)]
    base = sets[0][1]['tasks']
    for stat in [only] if only else ['Min', 'Hmean', 'Stddev', 'CoeffVar', 'Max']:
        for t in sorted(base, key=int):
            b = stats(base[t])[stat]
            line = f"{stat:9} {'unlink1-processes-' + t:21}"
            for _, s in sets:
                v = stats(s['tasks'][t])[stat] if t in s['tasks'] else float('nan')
                line += f' {v:10.2f} ({100 * (v - b) / b if b else 0:7.2f}%)'
            rows.append(line)
    return '\n'.join(rows)


def seed(path):
    """the commit's comparison: calls, repeats, Avg runtime in ms"""
    text = open(path).read()
    calls, repeats = map(int, CALLS_RE.search(text).groups())
    ns = {v: [int(m) for m in re.findall(rf'\b{v} (\d+)', text)] for v in SEED}
    avg = {v: round(statistics.mean(ns[v]) / 1e6, 3) for v in SEED}
    return {'calls': calls, 'repeats': repeats, 'avg_runtime_ms': avg,
            'ratio': round(avg[SEED[0]] / avg[SEED[1]], 3)}


def live(path):
    """sched_state_bench's summary: per CPU and variant median, min, max
    ns/call; per CPU the resolution and the answers"""
    text = open(path).read()
    calls, repeats = map(int, CALLS_RE.search(text).groups())
    machine = MACHINE_RE.search(text)
    out = {'calls': calls, 'repeats': repeats,
           'machine': machine[1] if machine else None, 'cpus': {},
           'resolution': {m[1]: float(m[2]) for m in RES_RE.finditer(text)},
           'answers': {}}
    for m in LIVE_RE.finditer(text):
        out['cpus'].setdefault(m[1], {})[m[2]] = {
            'median': float(m[3]), 'min': float(m[4]), 'max': float(m[5])}
    for m in ANSWER_RE.finditer(text):
        out['answers'].setdefault(m[1], {})[m[2]] = m[3]
    if not out['cpus'] or not out['answers']:
        raise ValueError(f'{path}: no summary line')
    return out


def gather(out, kernels):
    build = os.path.dirname(out)
    git = ['git', '-C', TOP, 'describe', '--always', '--dirty', '--abbrev=12']
    result = {'date': time.strftime('%Y-%m-%d', time.gmtime()),
              'quick': os.environ.get('QUICK', '0') == '1',
              'host': {'arch': platform.machine(), 'cpus': os.cpu_count()},
              'commit': subprocess.run(git, capture_output=True,
                                       text=True).stdout.strip() or None,
              'kernels': []}
    for k in kernels:
        vm = json.load(open(f'{build}/{k}/bench/result.json'))
        u = json.load(open(f'{out}/{k}-unlink1.json'))
        result['kernels'].append({
            'name': k, 'release': u['kernel'], 'arch': vm['arch'],
            'accel': vm['accel'], 'cpus': u['ncpus'],
            'seed': seed(f'{out}/{k}-seed.txt'),
            'unlink1': {'series': 'unlink1-processes', 'warmup': u['warmup'],
                        'interval_ms': u['interval_ms'],
                        'tasks': {t: {'hmean': round(stats(s)['Hmean'], 2),
                                      'samples': s}
                                  for t, s in u['tasks'].items()}},
            'live': live(f'{out}/{k}-live.tap')})
    return result


def report(out, result):
    print("== commit 642fa448ae's benchmarks in QEMU, per architecture, and the\n"
          "== live path.  TCG runs each architecture's barriers, atomics and\n"
          "== stores through its own helpers: every figure, ratios included,\n"
          "== describes QEMU on this host, not a CPU.  Real figures come from\n"
          "== hardware or KVM.")
    arches = list(dict.fromkeys(k['arch'] for k in result['kernels']))
    arches.sort(key=lambda a: ORDER.index(a) if a in ORDER else len(ORDER))
    for n, a in enumerate(arches, 1):
        ks = [k for k in result['kernels'] if k['arch'] == a]
        print(f"\n== {n}. {a.replace('x86_64', 'x86-64')} ==\n")
        for k in ks:
            print(f"{k['name']}: {k['release']}, {k['cpus']} CPUs, "
                  f"{a} under {k['accel'].upper()}")
        for k in ks:
            avg = k['seed']['avg_runtime_ms']
            print(f"{k['name']}, {k['seed']['calls']} calls:\n"
                  f"Avg runtime set_task_state():    {avg[SEED[0]]:.0f} msecs\n"
                  f"Avg runtime set_current_state(): {avg[SEED[1]]:.0f} msecs")
        sets = [(k['name'], {'tasks': {t: v['samples'] for t, v in
                                       k['unlink1']['tasks'].items()}})
                for k in ks]
        print('\n' + table(sets, 'Hmean'))
        print('\nlive path, sched_state_bench: ns/call over the repeats, and the\n'
              'median of each per-repeat difference (or below resolution)')
        for k in ks:
            text = open(f"{out}/{k['name']}-live.tap").read()
            print(f"{k['name']}:\n" + '\n'.join(
                re.findall(r'^# (cpu \d+ (?!repeat).*)$', text, re.M)))
        if len(arches) == 1:
            print('\n' + table(sets))


def keep(result):
    env = os.environ.get
    if env('BENCH_FAILED', '0') != '0' or env('BENCH_KEEP') == '0':
        return False
    if len({k['arch'] for k in result['kernels']}) > 1:
        return False
    return env('BENCH_KEEP') == '1' or not (
        env('QUICK', '0') == '1' or env('BENCH_KERNELS') or env('ARCH') or
        env('KIMAGE'))


def wrap(text, indent=''):
    return textwrap.wrap(text, 72, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


def cover(result):
    """what the live path answered, per kernel; emulated timings are no
    performance figures, so the 2017 benchmarks' stay in make bench's report"""
    ks = result['kernels']
    l0 = ks[0]['live']
    how = 'make bench QUICK=1, a short run' if result['quick'] else 'make bench'
    arches = ', '.join(dict.fromkeys(
        f"{k['arch']} under {k['accel'].upper()}, {k['cpus']} vCPUs" for k in ks))
    emulated = any(k['accel'] == 'tcg' for k in ks)
    what = ("emulated: every figure, ratios included, describes QEMU's "
            "translation, not a CPU" if emulated
            else "virtualized: figures describe the guest, not bare metal")
    cpu = sorted(l0['cpus'], key=int)[0]
    lines = wrap(f"sched_state_bench ({how}; {result['date']}; {arches}, on "
                 f"a shared {result['host']['cpus']}-CPU {result['host']['arch']} "
                 f"host; {what}; cpu {cpu}, {l0['calls']} calls x "
                 f"{l0['repeats']} repeats): the median of the per-repeat "
                 "differences, or \"below resolution\" when no larger than "
                 "the empty loop's max - min:")
    for k in ks:
        lv = k['live']
        lines += wrap(f"{k['name']} (resolution {lv['resolution'][cpu]:.3f} "
                      f"ns/call; {lv.get('machine') or '?'}):", '  ')
        for q, a in lv['answers'][cpu].items():
            line = f'    {q}: {a}'
            lines += [line] if len(line) <= 72 else [f'    {q}:', f'      {a}']
    lines += [''] + wrap(
        "Commit 642fa448ae's own two measurements (its set_task_state() loop "
        "and will-it-scale unlink1's Hmean, mmtests-style) are repeated by "
        "the workshop's make bench; " +
        ("under emulation their figures describe QEMU, so they are not "
         "quoted here.  Real figures need real hardware." if emulated else
         "its report has the tables."))
    return '\n'.join(lines) + '\n'


def main(argv):
    cmd, args = (argv + [''])[0], argv[1:]
    try:
        if cmd == 'table' and args:
            print(table([(a.split('=', 1)[0], json.load(open(a.split('=', 1)[1])))
                         for a in args]))
        elif cmd == 'cover' and len(args) <= 1:
            sys.stdout.write(cover(json.load(open((args or [KEPT])[0]))))
        elif cmd == 'report' and len(args) >= 2:
            result = gather(args[0], args[1:])
            report(args[0], result)
            files = [f'{args[0]}/result.json'] + ([KEPT] if keep(result) else [])
            for f in files:
                with open(f, 'w') as fp:
                    json.dump(result, fp, indent=1)
                    fp.write('\n')
            print(f"\nthe run as data: {' and '.join(files)}", file=sys.stderr)
        else:
            sys.exit(__doc__)
    except (OSError, KeyError, ValueError, AttributeError) as e:
        sys.exit(f'bench.py: {e}')


if __name__ == '__main__':
    main(sys.argv[1:])
