#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A make bench run as data, and the cover letter's lines from it.

usage: bench-result.py OUT KERNEL...  gather scripts/bench/bench.sh's run in OUT
                                      ($BUILD/bench) into OUT/result.json,
                                      and keep it in bench/result.json when
                                      the run is the one to report (below)
       bench-result.py --cover [FILE] the cover letter's lines, from
                                      FILE (default bench/result.json)

For each KERNEL, OUT/KERNEL-seed.txt, -live.tap and -unlink1.json are what
its guest handed back, and OUT/../KERNEL/bench/result.json is vm.sh's
verdict of the boot (arch, accelerator).  result.json has the run's date,
whether it was QUICK=1, the host, the clone's commit (git describe
--dirty, when the data is gathered), and per kernel its release, arch,
accelerator and CPUs; commit 642fa448ae's comparison (calls, repeats, the
"Avg runtime" of set_task_state() and set_current_state(), and their
ratio), unlink1's samples and Hmean per task count, and the live path
(sched_state_bench's own figures): per variant the median, min and max
ns/call, the resolution (the empty loop's max - min), its answers (a
difference's median, or "below resolution") and what it said of the
machine (emulated or virtualized, or not).  The numbers are those the
report prints; compare.py computes the first two.

bench/result.json is committed, and scripts/report/patches.sh puts --cover's lines
in the cover letter.  A run of make bench on its default kernels (no
QUICK=1, BENCH_KERNELS=, ARCH= or KIMAGE=) keeps its data there, as does
any run of one arch with BENCH_KEEP=1; no run with BENCH_KEEP=0, nor one
in which a kernel failed (BENCH_FAILED=1, from bench.sh): the cover
compares the kernels of one run, and only within an arch.
"""

import json
import os
import platform
import re
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (scripts/bench/compare.py)

KEPT = os.path.join(TOP, 'bench', 'result.json')
LIVE_RE = re.compile(r'^# cpu (\d+) (\S+) +ns/call median +(\S+) min +(\S+) '
                     r'max +(\S+)', re.M)
RES_RE = re.compile(r'^# cpu (\d+) resolution, [^:]*: (\S+) ns/call$', re.M)
ANSWER_RE = re.compile(r'^# cpu (\d+) (.+): (below resolution|'
                       r'[0-9.]+ ns/call (?:more|less))$', re.M)
MACHINE_RE = re.compile(r'^# ((?:emulated or virtualized|no hypervisor) .*)$',
                        re.M)
SEED = ('set_task_state_ptr', 'set_current_state')


def seed(path):
    """The commit's comparison: calls, repeats, Avg runtime msecs."""
    _, data = compare.load(path)
    variants = compare.latency_variants(data)
    avg = {v: round(compare.amean(variants[v][1]), 3) for v in SEED}
    return {'calls': data['calls'], 'repeats': data['repeats'],
            'avg_runtime_ms': avg,
            'ratio': round(avg[SEED[0]] / avg[SEED[1]], 3)}


def unlink1(path):
    """unlink1's settings, and per task count its samples (ops/sec) and
    their Hmean."""
    _, data = compare.load(path)
    (series, rows), = compare.throughput_series('', [data])
    return {'series': series, 'warmup': data.get('warmup'),
            'samples': data.get('nr_samples'),
            'interval_ms': data.get('interval_ms'),
            'tasks': {str(t): {'hmean': round(rows[t][1]['hmean'], 2),
                               'samples': rows[t][0]}
                      for t in sorted(rows)}}


def live(path):
    """sched_state_bench's summary: per CPU and variant, median, min, max
    ns/call; per CPU the resolution and the answers, as it printed them."""
    text = open(path).read()
    _, data = compare.load(path)
    machine = MACHINE_RE.search(text)
    out = {'calls': data['calls'], 'repeats': data['repeats'],
           'machine': machine[1] if machine else None, 'cpus': {},
           'resolution': {m[1]: float(m[2]) for m in RES_RE.finditer(text)},
           'answers': {}}
    for m in LIVE_RE.finditer(text):
        v = {'median': float(m[3]), 'min': float(m[4]), 'max': float(m[5])}
        out['cpus'].setdefault(m[1], {})[m[2]] = v
    for m in ANSWER_RE.finditer(text):
        out['answers'].setdefault(m[1], {})[m[2]] = m[3]
    if not out['cpus'] or not out['answers']:
        raise compare.InputError(f'{path}: no summary line')
    return out


def gather(out, kernels):
    build = os.path.dirname(out)
    result = {'date': time.strftime('%Y-%m-%d', time.gmtime()),
              'quick': os.environ.get('QUICK', '0') == '1',
              'host': {'arch': platform.machine(), 'cpus': os.cpu_count()},
              'commit': subprocess.run(['git', '-C', TOP, 'describe', '--always',
                                        '--dirty', '--abbrev=12'],
                                       capture_output=True, text=True).stdout.strip() or None,
              'kernels': []}
    for k in kernels:
        vm = json.load(open(f'{build}/{k}/bench/result.json'))
        u = json.load(open(f'{out}/{k}-unlink1.json'))
        result['kernels'].append({
            'name': k, 'release': u.get('kernel'), 'arch': vm['arch'],
            'accel': vm['accel'], 'cpus': u.get('ncpus'),
            'seed': seed(f'{out}/{k}-seed.txt'),
            'unlink1': unlink1(f'{out}/{k}-unlink1.json'),
            'live': live(f'{out}/{k}-live.tap')})
    return result


def keep(result):
    """Whether this run's data is the one to report (see the docstring)."""
    env = os.environ.get
    if env('BENCH_FAILED', '0') != '0' or env('BENCH_KEEP') == '0':
        return False
    if len({k['arch'] for k in result['kernels']}) > 1:
        return False            # the cover compares kernels: one arch
    if env('BENCH_KEEP') == '1':
        return True
    return not (env('QUICK', '0') == '1' or env('BENCH_KERNELS') or
                env('ARCH') or env('KIMAGE'))


def wrap(text, indent=''):
    return textwrap.wrap(text, 72, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


def cover(result):
    """The cover letter's lines: what the live path answered, per kernel.
    Emulated timings are no performance figures: the 2017 benchmarks'
    numbers stay in make bench's report, out of the cover."""
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
                 f"a shared {result['host']['cpus']}-CPU "
                 f"{result['host']['arch']} host; {what}; cpu {cpu}, "
                 f"{l0['calls']} calls x {l0['repeats']} repeats): the "
                 "median of the per-repeat differences, or \"below "
                 "resolution\" when no larger than the empty loop's "
                 "max - min:")
    for k in ks:
        lv = k['live']
        answers = lv.get('answers', {}).get(cpu)
        if not answers:
            lines.append(f"  {k['name']}: no answers in this data: "
                         "run make bench")
            continue
        lines += wrap(f"{k['name']} (resolution "
                      f"{lv['resolution'][cpu]:.3f} ns/call; "
                      f"{lv.get('machine') or '?'}):", '  ')
        for q, a in answers.items():
            line = f'    {q}: {a}'
            lines += [line] if len(line) <= 72 else [f'    {q}:', f'      {a}']
    lines.append('')
    lines += wrap("Commit 642fa448ae's own two measurements (its "
                  "set_task_state() loop and will-it-scale unlink1's "
                  "Hmean, mmtests-style) are repeated by the workshop's "
                  "make bench; "
                  + ("under emulation their figures describe QEMU, so "
                     "they are not quoted here.  Real figures need real "
                     "hardware." if emulated else
                     "its report has the tables."))
    return '\n'.join(lines) + '\n'


def main():
    if sys.argv[1:2] == ['--cover'] and len(sys.argv) <= 3:
        try:
            sys.stdout.write(cover(json.load(open((sys.argv[2:] or [KEPT])[0]))))
        except OSError as e:
            print(f'bench-result.py: {e}: run make bench', file=sys.stderr)
            return 1
        return 0
    if len(sys.argv) < 3 or sys.argv[1].startswith('-'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    out, kernels = sys.argv[1], sys.argv[2:]
    try:
        result = gather(out, kernels)
    except (OSError, KeyError, ValueError, compare.InputError) as e:
        print(f'bench-result.py: {e}', file=sys.stderr)
        return 1
    kept = keep(result)
    files = [f'{out}/result.json'] + ([KEPT] if kept else [])
    for f in files:
        os.makedirs(os.path.dirname(f), exist_ok=True)
        with open(f, 'w') as fp:
            json.dump(result, fp, indent=1)
            fp.write('\n')
    print(f"bench-result: {' and '.join(files)}"
          f"{'' if kept else ' (not kept in bench/result.json: see scripts/bench/bench-result.py)'}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
