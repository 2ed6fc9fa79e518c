#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mutants' data: the one reader of the mutants' headers and of the rule
inventory (mutants/rules.tsv), the judge of each mutant's run, and the
writer of scripts/gates/mutants.sh's results: OUT/result.json and two
markdown tables, OUT/table.md (a row per mutant) and OUT/map.md (a row per
check of the control runs: the kernel code the mutants that turn it red
break), and the inventory's coverage: rows with a check and a mutant that
went red through it, over all rows, with every other row's reason.

A mutant's header, the lines before its diff ("Name: value"):
  Breaks:   the rule it breaks, as the kernel keeps it
  Code:     file and function, then what it changes
  Checks:   the checks that must go red, comma-separated: the mutant is red
            only when every one of them failed (others may fail too)
  Build:    module: a header whose macro or inline the module expands; the
            kernel is not rebuilt, only the module against the patched tree
  Kernel:   the kernel it breaks (scripts/kernels.tsv; default mainline)
  Runs:     a race's: boot again while green, up to N runs
  Race-ms:  the race's bound, SCHED_STATE_RACE_MS in the guest (vm.sh --env)

usage: mutants-result.py OUT SECONDS NAME...
                       (each NAME's OUT/NAME/verdict.json)
       mutants-result.py --plan NAME...        (a line per mutant for
                                                mutants.sh: name, kernel or
                                                -, module 0/1, runs, race ms)
       mutants-result.py --judge OUT NAME VMRC RUN KERNEL
                                               (OUT/NAME/verdict.json from
                                                its VM run; one line out)
       mutants-result.py --broken OUT NAME WHY KERNEL
       mutants-result.py --table RESULT_JSON   (print the mutants' table)
       mutants-result.py --map RESULT_JSON     (print the checks' map)
       mutants-result.py --coverage [RESULT_JSON]
                                               (the inventory's coverage;
                                                default mutants/result.json)
       mutants-result.py --readme RESULT_JSON  (a run of every mutant: keep
                                                its data in mutants/result.json,
                                                and both tables in docs/mutants.md)
       mutants-result.py --cover               (mutants/result.json for the
                                                series' cover letter)
       mutants-result.py --check               (the headers and rules.tsv
                                                agree; docs/mutants.md's tables are
                                                those of mutants/result.json,
                                                which has every mutants/*.patch)
"""
import glob
import json
import os
import re
import sys
import textwrap
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
MUTANTS = f'{TOP}/mutants'
KEPT = f'{MUTANTS}/result.json'
RULES = f'{MUTANTS}/rules.tsv'
README = f'{TOP}/docs/mutants.md'

# fixture.variant.test, fixture.test, global.test
CHECK = re.compile(r'[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+){1,2}')
HEADER = ('Breaks', 'Code', 'Checks', 'Build', 'Kernel', 'Runs', 'Race-ms')
RACE_MS_MAX = 30000	# the harness's bound on SCHED_STATE_RACE_MS


def split(field):
    """A comma-separated column or header value; '-' is none."""
    return [x.strip() for x in field.split(',') if x.strip() not in ('', '-')]


def header(name):
    """The header of mutants/NAME.patch, checked: {field: value}."""
    path = f'{MUTANTS}/{name}.patch'
    head = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith('--- '):
                break
            if not line.strip():
                continue
            key, sep, value = line.rstrip('\n').partition(': ')
            if not sep or key not in HEADER:
                raise ValueError(f'{path}:{n}: not a header line '
                                 f'({", ".join(HEADER)}): {line.strip()}')
            if key in head:
                raise ValueError(f'{path}:{n}: a second {key}:')
            head[key] = value.strip()
    for key in ('Breaks', 'Code', 'Checks'):
        if not head.get(key):
            raise ValueError(f'{path}: no {key}: line')
    head['checks'] = split(head['Checks'])
    bad = [c for c in head['checks'] if not CHECK.fullmatch(c)]
    if not head['checks'] or bad:
        raise ValueError(f'{path}: Checks: not check names: {", ".join(bad)}')
    if head.get('Build', 'module') != 'module':
        raise ValueError(f'{path}: Build: is "module" or absent')
    for key, low, high in (('Runs', 1, 10), ('Race-ms', 1, RACE_MS_MAX)):
        v = head.get(key)
        if v is not None and not (v.isdigit() and low <= int(v) <= high):
            raise ValueError(f'{path}: {key}: {v} is not in {low}..{high}')
    return head


def rules():
    """mutants/rules.tsv, checked: a dict per row."""
    cols = ('id', 'rule', 'code', 'checks', 'mutants', 'why')
    rows = []
    with open(RULES) as f:
        lines = f.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    first = lines[0].split('\t')
    if len(first) != len(cols) or first[0] != 'id':
        raise ValueError(f'{RULES}:1: the header line names {len(cols)} '
                         'columns, id first')
    seen = set()
    for n, line in enumerate(lines[1:], 2):
        f = line.split('\t')
        if len(f) != len(cols):
            raise ValueError(f'{RULES}:{n}: {len(f)} columns, not {len(cols)}')
        row = dict(zip(cols, f))
        if row['id'] in seen:
            raise ValueError(f'{RULES}:{n}: a second row {row["id"]}')
        seen.add(row['id'])
        row['checks'], row['mutants'] = split(row['checks']), split(row['mutants'])
        bad = [c for c in row['checks'] if not CHECK.fullmatch(c)]
        if bad:
            raise ValueError(f'{RULES}:{n}: not check names: {", ".join(bad)}')
        has = bool(row['checks'] and row['mutants'])
        if has != (row['why'] == '-'):
            raise ValueError(f'{RULES}:{n}: {row["id"]}: the why column is "-" '
                             'exactly when the row has a check and a mutant')
        rows.append(row)
    return rows


def rules_of(name, rows):
    return [r for r in rows if name in r['mutants']]


def plan(names):
    """mutants.sh's view of each mutant's header, one line each."""
    for n in names:
        h = header(n)
        print('\t'.join((n, h.get('Kernel', '-'), '1' if 'Build' in h else '0',
                         h.get('Runs', '1'), h.get('Race-ms', '0'))))
    return 0


def leaves(result):
    """The checks a VM run reported, {name: result}: the leaf results under
    the top-level programs (the default run, the hung-task program)."""
    return {t['name']: t['result'] for t in result['tests']
            if t['depth'] >= 1 and not t['children']}


def judge(out, name, vmrc, run, kernel):
    """The verdict of NAME's run: broken if the kernel or the run broke, red
    only if every check of its Checks: line failed, else green."""
    h = header(name)
    runs = int(h.get('Runs', '1'))
    v = {'mutant': name, 'breaks': h['Breaks'], 'code': h['Code'],
         'checks': h['checks'], 'rules': [r['id'] for r in rules_of(name, rules())],
         'kernel': kernel, 'run': int(run), 'runs': runs,
         'verdict': None, 'why': None, 'red': [], 'reports': 0,
         'result': f'{out}/custom/vm/result.json'}
    if 'Race-ms' in h:
        v['race_ms'] = int(h['Race-ms'])
    try:
        v['build_seconds'] = int(open(f'{out}/build_seconds').read())
    except (OSError, ValueError):
        pass
    try:
        r = json.load(open(v['result']))
    except (OSError, ValueError):
        r = None
        v['verdict'], v['why'] = 'broken', f'no result.json from the VM run (rc {vmrc})'
    if r:
        v['reports'] = r['counts']['reports']
        v['seconds'] = r['seconds']['host']
        # the kernel crashed, if only in part: what the suite saw then
        # is the crash's doing, not the mutant's own
        crash = ('Kernel panic', 'Oops', 'kernel BUG at',
                 'general protection fault', 'Unable to handle kernel')
        panic = [k['text'] for k in r['kernel_reports']
                 if any(c in k['text'] for c in crash)]
        hung = [p for p in r['problems'] if 'guest crashed or hung' in p or
                'QEMU exited' in p]
        if r['seconds']['guest_boot'] is None:
            v['verdict'], v['why'] = 'broken', 'the kernel did not reach /init'
        elif r['timed_out']:
            v['verdict'] = 'broken'
            v['why'] = next((p for p in r['problems'] if p.startswith('TIMEOUT')),
                            'VM timeout')
        elif panic:
            v['verdict'], v['why'] = 'broken', panic[0].strip()
        elif hung:
            v['verdict'], v['why'] = 'broken', hung[0]
        elif r['counts']['top'] == 0:
            v['verdict'], v['why'] = 'broken', 'the suite reported no result'
        else:
            got = leaves(r)
            v['red'] = [c for c, res in got.items() if res == 'fail']
            missed = [c for c in h['checks'] if got.get(c) != 'fail']
            if not missed:
                v['verdict'] = 'red'
            else:
                v['verdict'] = 'green'
                why = ', '.join(f'{c} ({got.get(c, "not run")})' for c in missed)
                v['why'] = f'not red: {why}'
                other = [c for c in v['red'] if c not in h['checks']]
                if other:
                    v['why'] += f'; red instead: {", ".join(other)}'
    json.dump(v, open(f'{out}/verdict.json', 'w'), indent=1)
    line = f"{name} {v['verdict']}"
    if runs > 1:
        line += f" (run {run} of {runs})"
    if v['verdict'] == 'red':
        line += ': ' + ', '.join(v['checks'])
        other = [c for c in v['red'] if c not in v['checks']]
        if other:
            line += f' (also red: {", ".join(other)})'
    else:
        line += ': ' + v['why']
    print(line)
    return 0


def broken(out, name, why, kernel):
    """A mutant that never reached its VM run."""
    h = header(name)
    json.dump({'mutant': name, 'breaks': h['Breaks'], 'code': h['Code'],
               'checks': h['checks'],
               'rules': [r['id'] for r in rules_of(name, rules())],
               'kernel': kernel, 'verdict': 'broken', 'why': why, 'red': []},
              open(f'{out}/verdict.json', 'w'), indent=1)
    print(f'{name} broken: {why}')
    return 0


def coverage(result):
    """The inventory against a run: each row covered when it has a check and
    one of its mutants went red (through its Checks:, which are the row's)."""
    verdict = {v['mutant']: v for v in result['mutants']}
    rows, out = rules(), []
    for r in rows:
        red = [m for m in r['mutants'] if m in verdict and
               verdict[m]['verdict'] == 'red' and
               set(verdict[m]['red']) & set(r['checks'])]
        if r['checks'] and red:
            why = None
        elif r['why'] != '-':
            why = r['why']
        else:
            def state(m):
                if m not in verdict:
                    return 'not run'
                if verdict[m]['verdict'] == 'red':
                    return 'red, but through none of these checks'
                return verdict[m]['verdict']
            why = 'no mutant of it went red in this run: ' + ', '.join(
                f'{m} ({state(m)})' for m in r['mutants'])
        out.append({'id': r['id'], 'rule': r['rule'], 'code': r['code'],
                    'checks': r['checks'], 'mutants': r['mutants'],
                    'red': red, 'why': why})
    covered = sum(r['why'] is None for r in out)
    return {'rows': len(out), 'covered': covered, 'table': out}


def coverage_text(cov):
    lines = textwrap.wrap(
        f"rule inventory (mutants/rules.tsv): {cov['covered']} of "
        f"{cov['rows']} rules have a check and a mutant that turned it red "
        f"({100 * cov['covered'] // max(cov['rows'], 1)}%); the other "
        f"{cov['rows'] - cov['covered']}, and why:", 78)
    for r in cov['table']:
        if r['why'] is not None:
            lines += textwrap.wrap(f"{r['id']}: {r['rule']} ({r['code']})", 76,
                                   initial_indent='  ', subsequent_indent='    ',
                                   break_on_hyphens=False)
            lines += textwrap.wrap(r['why'], 76, initial_indent='    - ',
                                   subsequent_indent='      ',
                                   break_on_hyphens=False)
    return '\n'.join(lines) + '\n'


def checks_map(result):
    """Every check the control run reported, and the mutants that turn it
    red, with the code each breaks (the `Code:` of its patch, up to ':')."""
    rows = ['| check | the kernel code it guards | mutants that turn it red |',
            '| --- | --- | --- |']
    reached = 0
    for check in result['checks']:
        red = [v for v in result['mutants']
               if v['verdict'] == 'red' and check in v['red']]
        code = sorted({(v.get('code') or '').split(':')[0] for v in red})
        reached += bool(red)
        rows.append('| `{}` | {} | {} |'.format(
            check, '; '.join(code).replace('|', '\\|') or '(none yet)',
            ', '.join(f"`{v['mutant']}`" for v in red) or '(none yet)'))
    rows.append('')
    rows.append(f"{reached} of {len(result['checks'])} checks turn red "
                "under some mutant.")
    return '\n'.join(rows) + '\n'


def table(result):
    rows = ['| mutant | rule | the kernel code it breaks | kernel | verdict | checks that went red |',
            '| --- | --- | --- | --- | --- | --- |']
    for v in result['mutants']:
        if v['verdict'] == 'red':
            named = v.get('checks') or v['red']
            what = ', '.join(f'`{c}`' for c in named)
            other = [c for c in v['red'] if c not in named]
            if other:
                what += '; also ' + ', '.join(f'`{c}`' for c in other)
        else:
            what = v.get('why') or 'none'
        code = (v.get('code') or '').replace('|', '\\|')
        verdict = v['verdict']
        if v.get('runs', 1) > 1:
            verdict += f" (run {v['run']} of {v['runs']})"
        rule = ', '.join(f'`{r}`' for r in v.get('rules', []))
        rows.append(f"| `{v['mutant']}` | {rule} | {code} | {v.get('kernel', '')} "
                    f"| {verdict} | {what} |")
    c = result['counts']
    m, s = divmod(result['seconds'], 60)
    rows.append('')
    t = result['times']
    rows.append(f"{c['red']} red, {c['green']} green, {c['broken']} broken "
                f"of {len(result['mutants'])} mutants; {m} min {s} s in all, "
                f"the control runs included: {t['build']} s building and "
                f"staging, {t['vm']} s in the VMs, the rest waiting for the "
                "machine's VM lock (other guests).")
    cov = result.get('coverage')
    if cov:
        rows.append('')
        rows.append(f"Rule inventory (`mutants/rules.tsv`): {cov['covered']} "
                    f"of {cov['rows']} rules have a check and a mutant that "
                    "turned it red in this run.")
    return '\n'.join(rows) + '\n'


MARKS = {'table': table, 'map': checks_map}


def readme(result):
    """README.md with each block between <!-- mutants:NAME --> and
    <!-- mutants:end --> made anew from @result."""
    text = open(README).read()
    for name, how in MARKS.items():
        begin = f'<!-- mutants:{name} -->\n'
        head, sep, rest = text.partition(begin)
        _, sep2, tail = rest.partition('<!-- mutants:end -->')
        if not sep or not sep2:
            sys.exit(f'docs/mutants.md has no {begin.strip()} ... <!-- mutants:end -->')
        text = head + begin + how(result) + sep2 + tail
    return text


def check():
    """The headers, rules.tsv and the kept run agree; README's tables are
    the kept run's."""
    bad = []
    have = sorted(os.path.basename(p)[:-len('.patch')]
                  for p in glob.glob(f'{MUTANTS}/*.patch'))
    heads = {}
    try:
        rows = rules()
    except (OSError, ValueError) as e:
        rows = []
        bad.append(str(e))
    for n in have:
        try:
            heads[n] = header(n)
        except (OSError, ValueError) as e:
            bad.append(str(e))
    listed = {m for r in rows for m in r['mutants']}
    for r in rows:
        for m in r['mutants']:
            if m not in have:
                bad.append(f'mutants/rules.tsv: {r["id"]}: no mutants/{m}.patch')
            elif m in heads and not set(heads[m]['checks']) & set(r['checks']):
                bad.append(f'mutants/rules.tsv: {r["id"]}: none of its checks '
                           f'is in mutants/{m}.patch\'s Checks:')
    for n in have:
        if n not in listed:
            bad.append(f'mutants/{n}.patch: in no row of mutants/rules.tsv')
        elif n in heads:
            mine = {c for r in rules_of(n, rows) for c in r['checks']}
            extra = [c for c in heads[n]['checks'] if c not in mine]
            if extra:
                bad.append(f'mutants/{n}.patch: Checks: {", ".join(extra)}: in '
                           'no row of mutants/rules.tsv that lists it')
    try:
        result = json.load(open(KEPT))
    except (OSError, ValueError) as e:
        result = None
        bad.append(f'{KEPT}: {e} (run make mutants)')
    if result:
        ran = {v['mutant'] for v in result['mutants']}
        for n in sorted(set(have) - ran):
            bad.append(f'mutants/{n}.patch: not in mutants/result.json (run make mutants)')
        for n in sorted(ran - set(have)):
            bad.append(f'mutants/result.json: {n} has no mutants/{n}.patch')
        # the names are the suite's: those its control runs reported
        known = set(result['checks'])
        named = {c for r in rows for c in r['checks']} | \
                {c for h in heads.values() for c in h['checks']}
        for c in sorted(named - known):
            bad.append(f'{c}: named in mutants/ but not a check of the last '
                       'make mutants\' control runs')
        if readme(result) != open(README).read():
            bad.append('docs/mutants.md: the mutants tables are not those of '
                       'mutants/result.json (scripts/gates/mutants-result.py --readme)')
    for b in bad:
        print(b)
    return 1 if bad else 0


def cover(result):
    """The cover letter's lines: each mutant, the rules it breaks, its
    verdict and the checks it turned red; the inventory's coverage."""
    lines = textwrap.wrap(f"Kernel mutants (make mutants, {result.get('date')}, "
                          f"{result.get('kernel')}): a one-line regression "
                          "each, in the kernel file named; the suite must "
                          "turn red:", 72, break_on_hyphens=False)
    for v in result['mutants']:
        what = ', '.join(v.get('checks') or v['red']) \
            if v['verdict'] == 'red' else v.get('why') or ''
        rule = f" [{', '.join(v['rules'])}]" if v.get('rules') else ''
        lines.append(f"  {v['mutant']} ({(v.get('code') or '').split(':')[0]}, "
                     f"{v.get('kernel')}){rule}:")
        lines += textwrap.wrap(f"{v['verdict']}: {what}", 72,
                               initial_indent='    ', subsequent_indent='    ')
    c = result['counts']
    lines.append(f"  {c['red']} red, {c['green']} green, {c['broken']} broken "
                 f"of {len(result['mutants'])}.")
    cov = result.get('coverage')
    if cov:
        lines += textwrap.wrap(
            f"Rule inventory (mutants/rules.tsv): {cov['covered']} of "
            f"{cov['rows']} rules of the task-state code have a check and a "
            "mutant that turned it red; each other row says why (no check, "
            "no booting mutant, or not testable from a selftest).", 72)
    return '\n'.join(lines) + '\n'


def gather(out, seconds, names):
    mutants = [json.load(open(f'{out}/{n}/verdict.json')) for n in names]
    counts = {k: sum(v['verdict'] == k for v in mutants)
              for k in ('red', 'green', 'broken')}
    # mutants.sh stops before this when a control run fails; one control
    # run per kernel the mutants break, mainline first
    controls = sorted(d for d in os.listdir(out) if d.startswith('control-'))
    control_vm = control_build = 0
    checks, kernels = [], {}
    for c in controls:
        control = json.load(open(f'{out}/{c}/custom/vm/result.json'))
        control_vm += control['seconds']['host']
        checks += list(leaves(control))
        # what the cover letter says they were measured on, and when
        for line in open(f'{out}/{c}/custom/vm/dmesg.log', errors='replace'):
            if 'Linux version ' in line:
                kernels[c[len('control-'):]] = line.split('Linux version ')[1].split()[0]
                break
        try:
            control_build += int(open(f'{out}/{c}/build_seconds').read())
        except (OSError, ValueError):
            pass
    kernel = ', '.join(f'{k} {r}' for k, r in kernels.items())
    times = {'build': control_build +
             sum(v.get('build_seconds', 0) for v in mutants),
             'vm': control_vm + sum(v.get('seconds', 0) for v in mutants)}
    result = {'ok': counts['red'] == len(mutants), 'counts': counts,
              'seconds': seconds, 'times': times, 'mutants': mutants,
              'checks': list(dict.fromkeys(checks)), 'kernel': kernel,
              'date': time.strftime('%Y-%m-%d', time.gmtime())}
    cov = coverage(result)
    result['coverage'] = {'rows': cov['rows'], 'covered': cov['covered'],
                          'untested': [{'id': r['id'], 'why': r['why']}
                                       for r in cov['table'] if r['why']]}
    with open(f'{out}/result.json', 'w') as f:
        json.dump(result, f, indent=1)
        f.write('\n')
    with open(f'{out}/table.md', 'w') as f:
        f.write(table(result))
    with open(f'{out}/map.md', 'w') as f:
        f.write(checks_map(result))
    with open(f'{out}/coverage.txt', 'w') as f:
        f.write(coverage_text(cov))
    m, s = divmod(seconds, 60)
    text = coverage_text(cov)
    if set(names) == {os.path.basename(p)[:-len('.patch')]
                      for p in glob.glob(f'{MUTANTS}/*.patch')}:
        sys.stdout.write(text)
    else:
        print(text.split(', and why:')[0].replace('\n', ' ') +
              f" (a partial run: {out}/coverage.txt has every row's reason)")
    print(f"mutants: {counts['red']} red, {counts['green']} green, "
          f"{counts['broken']} broken of {len(mutants)} in {m} min {s} s; "
          f"{out}/result.json, {out}/table.md, {out}/map.md, {out}/coverage.txt")
    return 0 if result['ok'] else 1


def main():
    a = sys.argv[1:]
    try:
        if a[0] == '--plan':
            return plan(a[1:])
        if a[0] == '--judge' and len(a) == 6:
            return judge(*a[1:])
        if a[0] == '--broken' and len(a) == 5:
            return broken(*a[1:])
        if a[0] == '--coverage':
            sys.stdout.write(coverage_text(coverage(json.load(open(
                a[1] if len(a) > 1 else KEPT)))))
            return 0
    except (OSError, ValueError) as e:
        sys.exit(f'mutants-result.py: {e}')
    if a[0] == '--cover':
        sys.stdout.write(cover(json.load(open(KEPT))))
        return 0
    if a[0] == '--check':
        return check()
    if a[0] == '--readme':
        result = json.load(open(a[1]))
        for v in result['mutants']:
            v.pop('result', None)	# this machine's path
        with open(KEPT, 'w') as f:
            json.dump(result, f, indent=1)
            f.write('\n')
        text = readme(result)
        with open(README, 'w') as f:
            f.write(text)
        return 0
    if a[0] in ('--table', '--map'):
        how = table if a[0] == '--table' else checks_map
        sys.stdout.write(how(json.load(open(a[1]))))
        return 0
    if a[0].startswith('-') or len(a) < 2:
        sys.exit(__doc__)
    return gather(a[0], int(a[1]), a[2:])


if __name__ == '__main__':
    sys.exit(main())
