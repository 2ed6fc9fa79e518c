#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare sched_state benchmark results the way mmtests' compare-kernels does.

usage: compare.py [--plot PREFIX] [--only STAT[,STAT...]]
                  NAME=FILE[,FILE...] ...
       compare.py --avg-runtime NAME=FILE ...
       compare.py --arches NAME=FILE ...
       compare.py --self-test

Each NAME=FILE is one result set (a kernel, a mode, ...); the first is the
baseline.  A set may join several files of the same kind (say unlink1 and
unlink2 of one kernel).  A bare FILE is named after its file name.

Two kinds of result file are read, told apart by "benchmark":

1. unlink_bench -o FILE.json (scripts/bench):

   {"benchmark": "unlink1" | "unlink2", "mode": "processes" | "threads",
    "kernel": "6.1.0-18-amd64", "ncpus": 2, "interval_ms": 1000,
    "warmup": 5, "nr_samples": 5, "units": "ops/sec",
    "results": [{"tasks": 2, "samples": [ops/sec, ...],
                 "warmup_samples": [...], "min": .., "hmean": ..,
                 "stddev": .., "coeffvar": .., "max": ..}, ...]}

   The statistics are recomputed from "samples" (the per-interval totals over
   all tasks, warm-up dropped); without "samples" the stored ones are used
   and no significance is tested.  Rows are "<benchmark>-<mode>-<tasks>", as
   mmtests names will-it-scale operations.  Sets are matched by that name;
   when the baseline and a set hold one series each of different names (say
   processes against threads, or unlink1 against unlink2) they are matched by
   task count under the baseline's names.

2. the in-kernel set_current_state() latency benchmarks:

   {"benchmark": "set_current_state-latency", "kernel": "6.1.0-18-amd64",
    "calls": 65000000, "repeats": 10,
    "variants": {
      "set_current_state":   {"ns_per_call": [r1, ...], "total_ms": [...]},
      "set_task_state":      {...},   through a task pointer, as v4.10
      "__set_task_state":    {...},   the same store without the barrier
      "empty_loop":          {...}}}  the call alone: the floor

   (the seed's: "set_task_state_ptr" and "set_current_state"),

   or, as text, what produces them: the kernel log lines of the tooling's
   sched_state_seed.ko (scripts/bench/seed: set_task_state(current, ..) as
   it was, set_current_state()) or the KTAP of the overlay's
   sched_state_bench (the live path: set_current_state(),
   set_task_state(), __set_task_state(), the empty loop), both with the lines
     ... kernel <release>, <calls> calls x <repeats> repeats ...
     ... cpu <cpu> repeat <r> ns: <variant> <ns> ...        (the seed)
     ... cpu <cpu> repeat <r> ns/call: <variant> <ns/call> ... (the bench)

   Each list has one entry per repeat (and CPU): "calls" calls timed as a
   whole, "total_ms" its wall time and "ns_per_call" = total_ms * 1e6 /
   calls (either may be left out and is then derived from the other).
   Printed per set as commit 642fa448ae did ("Avg runtime
   set_current_state(): 552 msecs", the mean of total_ms), then a
   compare-kernels block of ns/call: Min, Median, Amean, Stddev and
   Corrected (Amean minus empty_loop's Amean), "below resolution" where that
   is no larger than the empty loop's spread (its max - min): never a
   negative cost.

Output (mmtests' compare-kernels, bin/lib/MMTests/Compare.pm and
PrintGeneric.pm): two header lines with the set names split at their first
"-", then one block per statistic, each row "%-Ss %-Os" (statistic,
operation) and per set "%12.2f (%7.2f%%)".  The percentage is pdiff =
new*100/base - 100 where higher is better (Min, Hmean, Max of ops/sec) and
pndiff = 100 - new*100/base where lower is better (Stddev, CoeffVar, and
every latency row), so a positive percentage is always a gain.  A difference
in the mean that is significant at 95% (Welch's two-sided t-test on the raw
samples or repeats) is shown as mmtests shows it since 2018: "*" in place of
both parentheses, "38977.33 *   8.00%*".

Statistics as mmtests computed them for will-it-scale in 2017: Hmean is the
harmonic mean (0 when a sample is not positive), Stddev the population
standard deviation, CoeffVar = Stddev*100/arithmetic mean.

--only STAT[,STAT...] keeps those blocks of the table (say Hmean, the
commit's rows).  --avg-runtime prints just the commit's two lines per
latency file, "Avg runtime set_task_state():    601 msecs" and the same of
set_current_state(), aligned as the commit aligned them, under the set's
name when there are several.  --arches puts latency files of different
architectures side by side (NAME: the arch): per variant, the corrected
ns/call of each, or "below resolution", with no percentage against the
first and no ratio: under emulation (QEMU's TCG) every figure, ratios
included, describes the emulator's translation of that architecture.

--plot PREFIX draws Hmean ops/sec (bars: Min..Max) against the task count,
one line per set, into PREFIX.png and PREFIX.svg with gnuplot; for latency
files, Amean ns/call per variant, one bar per set.

Exit: 0 printed, 1 bad input or a failed plot, 2 bad usage; --self-test
exits 1 on any mismatch.
"""

import json
import math
import os
import re
import signal
import subprocess
import sys

ALPHA = 0.05                    # significance level: 95%
FIELD = 12                      # mmtests _FieldLength
CMP_WIDTH = 7                   # mmtests _CompareLength (6 before June 2017)

LATENCY = 'set_current_state-latency'
VARIANTS = ['set_task_state_ptr', 'set_current_state', 'set_task_state',
            '__set_task_state', 'empty_loop']
BELOW = 'below resolution'
LABELS = {'set_task_state_ptr': 'set_task_state()',
          'empty_loop': 'empty loop'}
HEADER_RE = re.compile(r'kernel (\S+), (\d+) calls x (\d+) repeats')
REPEAT_RE = re.compile(r'cpu \d+ repeat \d+ (ns|ns/call): (.*)')


class InputError(Exception):
    pass


# --- statistics ---------------------------------------------------------

def amean(xs):
    return sum(xs) / len(xs)


def hmean(xs):
    """Harmonic mean; None when a value is not positive (mmtests: -1)."""
    if any(x <= 0 for x in xs):
        return None
    return len(xs) / sum(1 / x for x in xs)


def stddev(xs):
    """Population standard deviation, as mmtests' calc_stddev in 2017."""
    m = amean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def coeffvar(xs):
    m = amean(xs)
    return stddev(xs) * 100 / m if m else 0.0


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def pdiff(new, base):
    """mmtests' pdiff: % gain where higher is better."""
    if new == base or new == 0:
        return 0.0
    if base == 0:
        return 100.0
    return new * 100 / base - 100


def pndiff(new, base):
    """mmtests' pndiff: % gain where lower is better."""
    if new == base:
        return 0.0
    if new == 0:
        return 100.0
    if base == 0:
        return -99.0
    return 100 - new * 100 / base


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        for num in (even, odd):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


def t_pvalue(t, df):
    """Two-sided p-value of Student's t with df (real) degrees of freedom."""
    return betainc(df / 2, 0.5, df / (df + t * t))


def welch(a, b):
    """Welch's t-test: (t, df, two-sided p), or None below two samples."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    ma, mb = amean(a), amean(b)
    va = sum((x - ma) ** 2 for x in a) / (na - 1) / na
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1) / nb
    se2 = va + vb
    if se2 == 0:
        # mmtests: with no variance any difference is significant
        return (math.copysign(math.inf, ma - mb) if ma != mb else 0.0,
                na + nb - 2, 0.0 if ma != mb else 1.0)
    t = (ma - mb) / math.sqrt(se2)
    df = se2 ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    return t, df, t_pvalue(t, df)


def significant(a, b):
    r = welch(a, b) if a and b else None
    return r is not None and r[2] < ALPHA


# --- input --------------------------------------------------------------

def parse_text(text):
    """A latency result from the lines of sched_state_seed.ko or
    sched_state_bench, or None."""
    head = HEADER_RE.search(text)
    if not head:
        return None
    calls = int(head.group(2))
    variants = {}
    for m in REPEAT_RE.finditer(text):
        words = m.group(2).split()
        for name, val in zip(words[::2], words[1::2]):
            ns = float(val) / (calls if m.group(1) == 'ns' else 1)
            variants.setdefault(name, {'ns_per_call': []})
            variants[name]['ns_per_call'].append(ns)
    return {'benchmark': LATENCY, 'kernel': head.group(1), 'calls': calls,
            'repeats': int(head.group(3)), 'variants': variants}


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise InputError(f'{path}: {e}') from None
    try:
        data = json.loads(text)
    except ValueError as e:
        data = parse_text(text)
        if data is None:
            raise InputError(f'{path}: {e}') from None
    if not isinstance(data, dict) or 'benchmark' not in data:
        raise InputError(f'{path}: not a result file (no "benchmark")')
    data['_path'] = path
    if data['benchmark'] == LATENCY:
        return 'latency', data
    if not isinstance(data.get('results'), list):
        raise InputError(f'{path}: no "results" list')
    return 'throughput', data


def parse_sets(args):
    sets = []
    for arg in args:
        name, sep, files = arg.partition('=')
        if not sep:
            files = arg
            name = re.sub(r'\.json$', '', os.path.basename(arg))
        kinds, datas = set(), []
        for path in files.split(','):
            kind, data = load(path)
            kinds.add(kind)
            datas.append(data)
        if len(kinds) != 1:
            raise InputError(f'{name}: mixes throughput and latency files')
        sets.append((name, kinds.pop(), datas))
    if len({kind for _, kind, _ in sets}) != 1:
        raise InputError('all sets must be of the same kind')
    return sets


def throughput_series(name, datas):
    """[(series, {tasks: (samples or None, stats)})] in file order."""
    out = []
    for data in datas:
        series = f"{data['benchmark']}-{data.get('mode', 'processes')}"
        rows = {}
        for r in data['results']:
            try:
                tasks = int(r['tasks'])
                samples = [float(x) for x in r.get('samples') or []]
                if samples:
                    stats = {'min': min(samples), 'hmean': hmean(samples),
                             'stddev': stddev(samples),
                             'coeffvar': coeffvar(samples),
                             'max': max(samples)}
                else:
                    stats = {k: float(r[k]) for k in
                             ('min', 'hmean', 'stddev', 'coeffvar', 'max')}
                    samples = None
            except (KeyError, TypeError, ValueError) as e:
                raise InputError(f"{data['_path']}: bad result: {e}") from None
            rows[tasks] = (samples, stats)
        out.append((series, rows))
    return out


# --- mmtests' table -----------------------------------------------------

def header_parts(name):
    """Split a set name as mmtests' _generateHeaderTable() does."""
    index = name.find('-')
    if index < 0:
        return '', name         # mmtests would print name[:-1] above name
    if re.search(r'-rc[0-9]', name[index:2 * index + 3]):
        index += 4
    return name[:index], name[index + 1:]


def render(names, rows, precision=2, stats=()):
    """rows: [(stat, op, [(value, pct, sig), ...])] -> the table's lines;
    the statistic's column as wide as the widest of stats and of rows'."""
    width = CMP_WIDTH
    slen = max(len(s) for s in [r[0] for r in rows] + list(stats))
    olen = max(len(r[1]) for r in rows)
    lines = []
    parts = [header_parts(n) for n in names]
    for i in (0, 1):
        if i == 0 and not any(p[0] for p in parts):
            continue
        line = '%*s' % (slen + olen + 1, '')
        for p in parts:
            line += '%*s' % (FIELD + width + 4, p[i])
        lines.append(line)
    for stat, op, cells in rows:
        line = '%-*s %-*s' % (slen, stat, olen, op)
        for value, pct, sig in cells:
            if value is None:
                line += '%*s' % (FIELD + width + 4, BELOW)
                continue
            fmt = ' (%*.2f%%)' if not sig else ' *%*.2f%%*'
            line += '%*.*f' % (FIELD, precision, value)
            line += fmt % (width, pct)
        lines.append(line)
    return lines


def throughput_table(sets, quiet=False, only=None):
    names = [s[0] for s in sets]
    all_series = [throughput_series(n, d) for n, _, d in sets]
    base = all_series[0]
    ops = []                    # (op name, series, tasks)
    for series, rows in base:
        for tasks in sorted(rows):
            ops.append((f'{series}-{tasks}', series, tasks))

    def lookup(j, series, tasks):
        own = dict(all_series[j])
        if series in own:
            return own[series].get(tasks)
        if len(base) == 1 and len(all_series[j]) == 1:
            return all_series[j][0][1].get(tasks)
        return None

    for j in range(1, len(sets)):
        if not quiet and len(base) == 1 and len(all_series[j]) == 1 and \
           base[0][0] != all_series[j][0][0]:
            print(f'note: {names[j]} holds {all_series[j][0][0]}, the '
                  f'baseline {base[0][0]}: rows matched by task count',
                  file=sys.stderr)

    stats = [('Min', 'min', pdiff), ('Hmean', 'hmean', pdiff),
             ('Stddev', 'stddev', pndiff), ('CoeffVar', 'coeffvar', pndiff),
             ('Max', 'max', pdiff)]
    rows = []
    for title, key, cmp in stats:
        if only and title not in only:
            continue
        for op, series, tasks in ops:
            cells = []
            b = lookup(0, series, tasks)
            for j in range(len(sets)):
                r = lookup(j, series, tasks)
                v = r[1][key] if r else None
                bv = b[1][key] if b else None
                if v is None or bv is None:
                    cells.append((0.0, 0.0, False))
                    continue
                sig = (key == 'hmean' and j > 0 and
                       significant(b[0], r[0]))
                cells.append((v, cmp(v, bv), sig))
            rows.append((title, op, cells))
    return render(names, rows, stats=[s[0] for s in stats])


# --- the latency benchmark ----------------------------------------------

def latency_variants(data):
    """{variant: (ns_per_call list, total_ms list)} of one file."""
    calls = data.get('calls')
    out = {}
    variants = data.get('variants')
    if not isinstance(variants, dict) or not variants:
        raise InputError(f"{data['_path']}: no \"variants\"")
    for name, v in variants.items():
        try:
            ns = [float(x) for x in v.get('ns_per_call') or []]
            ms = [float(x) for x in v.get('total_ms') or []]
            if not ns and ms and calls:
                ns = [x * 1e6 / calls for x in ms]
            if not ms and ns and calls:
                ms = [x * calls / 1e6 for x in ns]
        except (AttributeError, TypeError, ValueError) as e:
            raise InputError(f"{data['_path']}: {name}: {e}") from None
        if not ns:
            raise InputError(f"{data['_path']}: {name}: no ns_per_call")
        out[name] = (ns, ms)
    return out


def corrected(variants, v):
    """v's Amean ns/call less the empty loop's, or None when that is no
    larger than the empty loop's resolution, its max - min (a variant can
    not cost less than nothing)."""
    empty = variants['empty_loop'][0]
    val = amean(variants[v][0]) - amean(empty)
    return val if val > max(empty) - min(empty) else None


def variant_order(names):
    return [v for v in VARIANTS if v in names] + \
           sorted(v for v in names if v not in VARIANTS)


def avg_runtime_lines(name, data, variants):
    lines = [f"{name}: kernel {data.get('kernel', '?')}, "
             f"{data.get('calls', '?')} calls x "
             f"{data.get('repeats', '?')} repeats"]
    for v in variant_order(variants):
        ms = variants[v][1]
        if ms:
            label = LABELS.get(v, v + '()')
            lines.append(f'Avg runtime {label}: {amean(ms):.0f} msecs')
    return lines


def latency_table(sets, only=None):
    names = [s[0] for s in sets]
    lines = []
    per_set = []
    for name, _, datas in sets:
        merged = {}
        for data in datas:
            variants = latency_variants(data)
            lines += avg_runtime_lines(name, data, variants)
            merged.update(variants)
        per_set.append(merged)
        lines.append('')
    ops = variant_order(per_set[0])

    def net(j, v):
        return corrected(per_set[j], v) if v in per_set[j] else None

    stats = [('Min', min), ('Median', median), ('Amean', amean),
             ('Stddev', stddev), ('Corrected', None)]
    rows = []
    for title, fn in stats:
        if only and title not in only:
            continue
        if not fn and 'empty_loop' not in per_set[0]:
            continue            # no empty_loop to correct by
        for v in ops:
            if not fn and v == 'empty_loop':
                continue
            cells = []
            base = per_set[0][v][0]
            bv = fn(base) if fn else net(0, v)
            for j in range(len(sets)):
                xs = per_set[j].get(v, (None,))[0]
                if not xs:
                    cells.append((0.0, 0.0, False))
                    continue
                if not fn and 'empty_loop' not in per_set[j]:
                    cells.append((0.0, 0.0, False))
                    continue
                val = fn(xs) if fn else net(j, v)
                if val is None and not fn:
                    cells.append((None, 0.0, False))
                    continue
                if bv is None:  # no percentage against a base below resolution
                    cells.append((val, 0.0, False))
                    continue
                cmp = pndiff
                sig = (title == 'Amean' and j > 0 and
                       significant(base, xs))
                cells.append((val, cmp(val, bv), sig))
            rows.append((title, v, cells))
    lines.append('ns/call:')
    return lines + render(names, rows, precision=3)


def commit_avg_runtime(sets):
    """The commit's two "Avg runtime" lines of each set."""
    lines = []
    pair = ['set_task_state_ptr', 'set_current_state']
    width = max(len(LABELS.get(v, v + '()')) for v in pair) + 1
    for name, _, datas in sets:
        if len(sets) > 1:
            lines.append(f'{name}:')
        merged = {}
        for data in datas:
            merged.update(latency_variants(data))
        for v in pair:
            if v not in merged or not merged[v][1]:
                raise InputError(f'{name}: no {v} total_ms')
            label = LABELS.get(v, v + '()') + ':'
            lines.append(f'Avg runtime {label:<{width}} '
                         f'{amean(merged[v][1]):.0f} msecs')
    return lines


def arch_table(sets):
    """Corrected ns/call per variant and arch, or "below resolution"."""
    names = [s[0] for s in sets]
    per_set = []
    for name, _, datas in sets:
        merged = {}
        for data in datas:
            merged.update(latency_variants(data))
        if 'empty_loop' not in merged:
            raise InputError(f'{name}: needs empty_loop')
        per_set.append(merged)
    ops = [v for v in variant_order(per_set[0]) if v != 'empty_loop']
    cell = 22
    vlen = max([len(LABELS.get(v, v + '()')) for v in ops] +
               [len('empty loop, ns/call')])
    lines = ['%-*s' % (vlen, 'corrected ns/call') +
             ''.join('%*s' % (cell, n) for n in names)]
    for v in ops:
        line = '%-*s' % (vlen, LABELS.get(v, v + '()'))
        for p in per_set:
            val = corrected(p, v) if v in p else '-'
            line += '%*s' % (cell, BELOW if val is None else
                             val if val == '-' else '%.3f' % val)
        lines.append(line)
    line = '%-*s' % (vlen, 'empty loop, ns/call')
    for p in per_set:
        line += '%*s' % (cell, '%.3f' % amean(p['empty_loop'][0]))
    lines.append(line)
    return lines


# --- plots ---------------------------------------------------------------

def gnuplot(script, prefix):
    font = 'noenhanced size 960,600 font "sans,11"'
    for term, ext in ((f'pngcairo {font}', 'png'),
                      (f'svg dynamic {font}', 'svg')):
        text = f'set terminal {term}\nset output "{prefix}.{ext}"\n' + script
        try:
            subprocess.run(['gnuplot'], input=text, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise InputError(f'gnuplot: {e}') from None


def quote(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def plot_throughput(sets, prefix):
    blocks, plots, kinds, machines, tasks = [], [], set(), set(), set()
    for name, _, datas in sets:
        series = throughput_series(name, datas)
        for data in datas:
            machines.add(f"{data.get('kernel', '?')}, "
                         f"{data.get('ncpus', '?')} CPUs")
        for s, rows in series:
            kinds.add(s)
            tasks.update(rows)
            title = name if len(series) == 1 else f'{name} {s}'
            block = f'$d{len(blocks)}'
            data = [f'{t} {r[1]["hmean"] or 0} {r[1]["min"]} {r[1]["max"]}'
                    for t, r in sorted(rows.items())]
            blocks.append(f'{block} << EOD\n' + '\n'.join(data) + '\nEOD\n')
            plots.append(f'{block} using 1:2:3:4 with yerrorlines '
                         f'lw 2 pt 7 ps 0.8 title {quote(title)}')
    what = ' '.join('/'.join(sorted({k.split('-')[i] for k in kinds}))
                    for i in (0, 1))
    title = f'will-it-scale {what}: ops/sec against tasks'
    if len(machines) == 1:
        title += f' ({machines.pop()})'
    top = max(tasks)
    script = ''.join(blocks) + f'''
set title {quote(title)}
set xlabel "tasks"
set ylabel "ops/sec (Hmean; bars: Min..Max)"
set yrange [0:*]
set xrange [0:{top + max(1, top // 20)}]
set xtics ({", ".join(str(t) for t in sorted(tasks))})
set grid
set key outside bottom center horizontal box
set bmargin 6
set format y "%.0f"
plot {", ".join(plots)}
'''
    gnuplot(script, prefix)


def plot_latency(sets, prefix):
    per_set = []
    for _, _, datas in sets:
        merged = {}
        for data in datas:
            merged.update(latency_variants(data))
        per_set.append(merged)
    ops = variant_order(per_set[0])
    rows = []
    for v in ops:
        vals = [str(amean(p[v][0])) if v in p else '0' for p in per_set]
        rows.append(quote(v) + ' ' + ' '.join(vals))
    cols = ', '.join(f'$d using {j + 2}:xtic(1) title {quote(n)}'
                     for j, (n, _, _) in enumerate(sets))
    script = '$d << EOD\n' + '\n'.join(rows) + '\nEOD\n' + f'''
set title "set_current_state() and friends: ns per call (Amean)"
set ylabel "ns/call"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -20
set grid ytics
set key outside right top box
plot {cols}
'''
    gnuplot(script, prefix)


# --- self-test -----------------------------------------------------------

def self_test():
    failed = 0

    def check(what, got, want, tol=1e-9):
        nonlocal failed
        if isinstance(want, str):
            ok = got == want
        elif isinstance(want, bool) or want is None:
            ok = got is want
        else:
            ok = got is not None and abs(got - want) <= tol * max(1, abs(want))
        print(f"{'ok' if ok else 'FAIL'} {what}: {got!r}"
              + ('' if ok else f' (want {want!r})'))
        failed += not ok

    xs = [1.0, 2.0, 4.0]
    check('hmean 1,2,4 = 12/7', hmean(xs), 12 / 7)
    check('hmean with a zero', hmean([1.0, 0.0]), None)
    check('amean 1,2,4 = 7/3', amean(xs), 7 / 3)
    check('population stddev 1,2,4 = sqrt(14)/3', stddev(xs),
          math.sqrt(14) / 3)
    check('stddev 2,4,4,4,5,5,7,9 = 2', stddev([2, 4, 4, 4, 5, 5, 7, 9]), 2.0)
    check('coeffvar 1,2,4 = 100*sqrt(14)/7', coeffvar(xs),
          100 * math.sqrt(14) / 7)
    check('coeffvar 2,4,4,4,5,5,7,9 = 40', coeffvar([2, 4, 4, 4, 5, 5, 7, 9]),
          40.0)
    check('median 3,1,2 = 2', median([3, 1, 2]), 2)
    check('median 4,1,3,2 = 2.5', median([4, 1, 3, 2]), 2.5)
    check('pdiff 110 vs 100 = 10', pdiff(110, 100), 10.0)
    check('pdiff 90 vs 100 = -10', pdiff(90, 100), -10.0)
    check('pdiff 0 vs 100 = 0 (mmtests)', pdiff(0, 100), 0.0)
    check('pdiff 5 vs 0 = 100 (mmtests)', pdiff(5, 0), 100.0)
    check('pdiff 38977.33 vs 36089.26', pdiff(38977.33, 36089.26),
          38977.33 / 36089.26 * 100 - 100)
    check('pndiff 90 vs 100 = 10', pndiff(90, 100), 10.0)
    check('pndiff 0 vs 5 = 100 (mmtests)', pndiff(0, 5), 100.0)
    check('pndiff 5 vs 0 = -99 (mmtests)', pndiff(5, 0), -99.0)

    # t distribution: closed forms for 1 and 2 degrees of freedom, then
    # the two-sided 5% critical values of the printed tables
    check('p(t=1, df=1) = 1/2', t_pvalue(1, 1), 0.5)
    check('p(t=3, df=1) = 1-2/pi*atan(3)', t_pvalue(3, 1),
          1 - 2 / math.pi * math.atan(3))
    check('p(t=2, df=2) = 1-2/sqrt(6)', t_pvalue(2, 2), 1 - 2 / math.sqrt(6))
    check('p(t=0.5, df=2) = 1-0.5/sqrt(2.25)', t_pvalue(0.5, 2),
          1 - 0.5 / math.sqrt(2.25))
    for t, df in ((12.706205, 1), (4.302653, 2), (2.570582, 5),
                  (2.306004, 8), (2.228139, 10), (2.042272, 30),
                  (1.959964, 1e7)):
        check(f'p(t={t}, df={df:g}) = 0.05', t_pvalue(t, df), 0.05, 1e-5)

    # Welch: equal variances, t = -2, df = 8 exactly
    t, df, p = welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7])
    check('welch equal var: t = -2', t, -2.0)
    check('welch equal var: df = 8', df, 8.0)
    check('welch equal var: p = p(2, 8)', p, t_pvalue(2, 8))
    check('welch equal var: not significant', 0.05 < p < 0.1, True)
    # unequal: var 4 (n 3) and 0.625 (n 5), se^2 = 4/3 + 1/8 = 35/24
    t, df, p = welch([10, 12, 14], [20, 20.5, 21, 21.5, 22])
    check('welch unequal: t = -9/sqrt(35/24)', t, -9 / math.sqrt(35 / 24))
    check('welch unequal: Satterthwaite df',
          df, (35 / 24) ** 2 / ((4 / 3) ** 2 / 2 + (1 / 8) ** 2 / 4))
    check('welch unequal: significant', significant(
        [10, 12, 14], [20, 20.5, 21, 21.5, 22]), True)
    check('welch: one sample is no test', welch([1], [2, 3]), None)
    check('welch: equal constants not significant',
          significant([5, 5, 5], [5, 5, 5]), False)
    check('welch: different constants significant',
          significant([5, 5, 5], [6, 6, 6]), True)

    # the table, byte for byte as mmtests' PrintGeneric prints it
    rows = [('Hmean', 'unlink1-processes-2',
             [(36089.26, 0.0, False), (38977.33, 8.0, False)]),
            ('Hmean', 'unlink1-processes-224',
             [(36089.26, 0.0, False), (38977.33, 8.0, True)]),
            ('CoeffVar', 'unlink1-processes-5',
             [(1.5, 0.0, False), (3.0, -100.0, False)])]
    out = render(['4.10.0-rc5-vanilla', '4.10.0-rc5-patched'], rows)
    check('header 1', out[0], ' ' * 30 + ' ' * 13 + '4.10.0-rc5' +
          ' ' * 13 + '4.10.0-rc5')
    check('header 2', out[1], ' ' * 30 + ' ' * 16 + 'vanilla' +
          ' ' * 16 + 'patched')
    check('row', out[2], 'Hmean    unlink1-processes-2      36089.26 '
          '(   0.00%)    38977.33 (   8.00%)')
    check('significant row', out[3], 'Hmean    unlink1-processes-224    '
          '36089.26 (   0.00%)    38977.33 *   8.00%*')
    check('negative', out[4], 'CoeffVar unlink1-processes-5          1.50 '
          '(   0.00%)        3.00 (-100.00%)')
    check('header of an -rc name', header_parts('v6.1-rc5-foo')[0],
          'v6.1-rc5')

    # a throughput and a latency file, end to end
    base = {'benchmark': 'unlink1', 'mode': 'processes', '_path': 'a',
            'results': [{'tasks': 2, 'samples': [1.0, 2.0, 4.0]}]}
    new = {'benchmark': 'unlink1', 'mode': 'threads', '_path': 'b',
           'results': [{'tasks': 2, 'samples': [2.0, 4.0, 8.0]}]}
    out = throughput_table([('a', 'throughput', [base]),
                            ('b', 'throughput', [new])], True)
    check('throughput Hmean row', out[2], 'Hmean    unlink1-processes-2'
          '        1.71 (   0.00%)        3.43 ( 100.00%)')
    check('throughput Stddev row', out[3], 'Stddev   unlink1-processes-2'
          '        1.25 (   0.00%)        2.49 (-100.00%)')
    lat = {'benchmark': LATENCY, 'kernel': 'k', 'calls': 1000000,
           'repeats': 2, '_path': 'c',
           'variants': {'set_current_state': {'total_ms': [552, 552]},
                        'set_task_state_ptr': {'ns_per_call': [601, 601]},
                        'empty_loop': {'ns_per_call': [0.5, 0.5]}}}
    out = latency_table([('x', 'latency', [lat])])
    check('latency first', out[1], 'Avg runtime set_task_state(): 601 msecs')
    check('latency second', out[2],
          'Avg runtime set_current_state(): 552 msecs')
    check('latency corrected', [x for x in out if x.startswith('Corrected')
                                and 'set_current' in x][0],
          'Corrected set_current_state      551.500 (   0.00%)')
    out = commit_avg_runtime([('x', 'latency', [lat])])
    check('commit layout, set_task_state()', out[0],
          'Avg runtime set_task_state():    601 msecs')
    check('commit layout, set_current_state()', out[1],
          'Avg runtime set_current_state(): 552 msecs')
    out = throughput_table([('a', 'throughput', [base]),
                            ('b', 'throughput', [new])], True,
                           only=['Hmean'])
    check('--only Hmean: a header and one row', len(out), 2)
    check('--only Hmean: as wide as all statistics', out[1],
          'Hmean    unlink1-processes-2        1.71 (   0.00%)'
          '        3.43 ( 100.00%)')
    lat2 = dict(lat, variants={
        'set_current_state': {'ns_per_call': [4.5, 4.5]},
        'set_task_state_ptr': {'ns_per_call': [9.5, 9.5]},
        'empty_loop': {'ns_per_call': [0.5, 0.5]}})
    out = arch_table([('x86-64', 'latency', [lat2]),
                      ('arm', 'latency', [lat2])])
    check('arches: set_task_state() row', out[1],
          'set_task_state()   ' + ' ' * 17 + '9.000' + ' ' * 17 + '9.000')
    check('arches: empty loop row', out[3],
          'empty loop, ns/call' + ' ' * 17 + '0.500' + ' ' * 17 + '0.500')
    # the floor's spread is 1: 0.5 over it is no cost, 0.5 under it neither
    lat3 = dict(lat, variants={
        'set_current_state': {'ns_per_call': [2.0, 3.0]},
        'set_task_state': {'ns_per_call': [1.5, 2.5]},
        '__set_task_state': {'ns_per_call': [1.0, 2.0]},
        'empty_loop': {'ns_per_call': [1.5, 2.5]}})
    out = arch_table([('x86-64', 'latency', [lat3])])
    check('arches: below resolution', out[1],
          'set_current_state()' + ' ' * 6 + 'below resolution')
    check('arches: under the floor is below resolution', out[3],
          '__set_task_state() ' + ' ' * 6 + 'below resolution')
    out = latency_table([('a', 'latency', [lat3]), ('b', 'latency', [lat2])])
    rows = [x for x in out if x.startswith('Corrected')]
    check('latency: below resolution', rows[0],
          'Corrected set_current_state       below resolution'
          '       4.000 (   0.00%)')
    check('latency: no negative cost', rows[2],
          'Corrected __set_task_state        below resolution'
          '       0.000 (   0.00%)')
    seed = parse_text('[ 1.0] sched_state_seed: kernel 6.12.1, 1000 calls'
                      ' x 2 repeats\n[ 2.0] sched_state_seed: cpu 0 repeat 1'
                      ' ns: set_task_state_ptr 3000 set_current_state 2000\n'
                      'sched_state_seed: cpu 1 repeat 2 ns: '
                      'set_task_state_ptr 5000 set_current_state 2000\n')
    check('seed lines: kernel', seed['kernel'], '6.12.1')
    check('seed lines: ns per call', seed['variants']['set_task_state_ptr']
          ['ns_per_call'][1], 5.0)
    live = parse_text('# sched_state_bench: kernel 7.3.0, 1000 calls x 3 '
                      'repeats, x86_64, cpu 0\n# cpu 0 repeat 1 ns/call: '
                      'set_current_state 4.500 __set_task_state 2.250\n')
    check('bench lines: ns per call', live['variants']['__set_task_state']
          ['ns_per_call'][0], 2.25)
    check('not a result', parse_text('# cpu 0 repeat 1 ns/call: x 1'), None)
    print('self-test: ' + ('FAILED' if failed else 'passed'))
    return 1 if failed else 0


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet under | head
    args = argv[1:]
    if args == ['--self-test']:
        return self_test()
    plot, only, mode = None, None, None
    while args and args[0].startswith('--'):
        opt = args.pop(0)
        if opt == '--plot' and args:
            plot = args.pop(0)
        elif opt.startswith('--plot='):
            plot = opt[len('--plot='):]
        elif opt == '--only' and args:
            only = args.pop(0).split(',')
        elif opt in ('--avg-runtime', '--arches'):
            mode = opt
        elif opt == '--':
            break
        else:
            args = []
            break
    if not args:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        sets = parse_sets(args)
        if mode and sets[0][1] != 'latency':
            raise InputError(f'{mode} takes latency files')
        if mode == '--avg-runtime':
            lines = commit_avg_runtime(sets)
        elif mode == '--arches':
            lines = arch_table(sets)
        elif sets[0][1] == 'latency':
            lines = latency_table(sets, only)
        else:
            lines = throughput_table(sets, only=only)
        print('\n'.join(lines))
        if plot:
            if sets[0][1] == 'latency':
                plot_latency(sets, plot)
            else:
                plot_throughput(sets, plot)
    except InputError as e:
        print(f'{os.path.basename(argv[0])}: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
