#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mutants' data (docs/mutants.md): the one reader of their headers and
of mutants/rules.tsv, the judge of each run, the writer of the results.

usage: mutants-result.py --plan [NAME...]   per mutant (all: in build order)
           its name, kernel (- default), module 0/1, runs, race ms
       mutants-result.py --judge OUT NAME VMRC RUN KERNEL | --broken OUT NAME
           WHY KERNEL   OUT/verdict.json and its line
       mutants-result.py OUT SECONDS NAME...   OUT/result.json, table.md,
           map.md, coverage.txt from each OUT/NAME/verdict.json
       mutants-result.py --readme RESULT_JSON   a run of every mutant to
           mutants/result.json and docs/mutants.md's tables
       mutants-result.py --check | --cover | --coverage [RESULT_JSON]
       mutants-result.py --repath DIR OLD NEW [OLD NEW...]   in every text
           file and symlink under DIR, file times kept
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
CRASH = ('Kernel panic', 'Oops', 'kernel BUG at', 'general protection fault',
         'Unable to handle kernel')


def split(field):
    """A comma-separated column or header value; '-' is none."""
    return [x.strip() for x in field.split(',') if x.strip() not in ('', '-')]


def known():
    return sorted(os.path.basename(p)[:-len('.patch')]
                  for p in glob.glob(f'{MUTANTS}/*.patch'))


def header(name):
    """The header of mutants/NAME.patch (the lines before its diff), checked:
    {field: value}, 'checks' the list and 'files' those it patches."""
    path = f'{MUTANTS}/{name}.patch'
    text = open(path).read()
    head = {}
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('--- '):
            break
        if not line.strip():
            continue
        key, sep, value = line.partition(': ')
        if not sep or key not in HEADER or key in head:
            raise ValueError(f'{path}:{n}: not a header line ({", ".join(HEADER)}), '
                             f'or a second one: {line.strip()}')
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
    head['files'] = re.findall(r'^\+\+\+ b/(\S+)', text, re.M)
    return head


def rules():
    """mutants/rules.tsv, checked: a dict per row."""
    cols = ('id', 'rule', 'code', 'checks', 'mutants', 'why')
    with open(RULES) as f:
        lines = f.read().removesuffix('\n').split('\n')
    if len(lines[0].split('\t')) != len(cols) or not lines[0].startswith('id\t'):
        raise ValueError(f'{RULES}:1: the header line names {len(cols)} '
                         'columns, id first')
    rows, seen = [], set()
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
        if bool(row['checks'] and row['mutants']) != (row['why'] == '-'):
            raise ValueError(f'{RULES}:{n}: {row["id"]}: the why column is "-" '
                             'exactly when the row has a check and a mutant')
        rows.append(row)
    return rows


def plan(names):
    """mutants.sh's view of each header; all mutants grouped by the file
    they patch, so that a reverted file is recompiled once more at most."""
    for n in names:
        if not os.path.exists(f'{MUTANTS}/{n}.patch'):
            raise ValueError(f'no mutant {n}; known: {" ".join(known())}')
    heads = {n: header(n) for n in names or known()}
    if not names:
        names = sorted(heads, key=lambda n: (heads[n]['files'][:1], n))
    for n in names:
        h = heads[n]
        print('\t'.join((n, h.get('Kernel', '-'), '1' if 'Build' in h else '0',
                         h.get('Runs', '1'), h.get('Race-ms', '0'))))


def leaves(result):
    """The checks a VM run reported, {name: result}: the leaf results under
    the top-level programs (the default run, the hung-task program)."""
    return {t['name']: t['result'] for t in result['tests']
            if t['depth'] >= 1 and not t['children']}


def broke(r, vmrc):
    """Why a VM run's result.json R says the kernel or the run broke."""
    if not r:
        return f'no result.json from the VM run (rc {vmrc})'
    if r['seconds']['guest_boot'] is None:
        return 'the kernel did not reach /init'
    if r['timed_out']:
        return next((p for p in r['problems'] if p.startswith('TIMEOUT')),
                    'VM timeout')
    # a crash, if only in part: what the suite saw then is its doing
    crash = [k['text'].strip() for k in r['kernel_reports']
             if any(c in k['text'] for c in CRASH)]
    crash += [p for p in r['problems']
              if 'guest crashed or hung' in p or 'QEMU exited' in p]
    if crash:
        return crash[0]
    if r['counts']['top'] == 0:
        return 'the suite reported no result'
    return None


def also(v, named):
    return [c for c in v['red'] if c not in named]


def verdict(out, name, kernel, vmrc=None, run=1, why=None):
    """OUT/verdict.json and its line: broken with WHY, or if the kernel or
    the VM run broke; red only if every check of Checks: failed, else green."""
    h = header(name)
    v = {'mutant': name, 'breaks': h['Breaks'], 'code': h['Code'],
         'checks': h['checks'],
         'rules': [r['id'] for r in rules() if name in r['mutants']],
         'kernel': kernel}
    runs = int(h.get('Runs', '1'))
    if why is None:
        v.update(run=int(run), runs=runs, verdict=None, why=None, red=[],
                 reports=0, result=f'{out}/custom/vm/result.json')
        if 'Race-ms' in h:
            v['race_ms'] = int(h['Race-ms'])
        try:
            v['build_seconds'] = int(open(f'{out}/build_seconds').read())
        except (OSError, ValueError):
            pass
        try:
            r = json.load(open(v['result']))
            v['reports'] = r['counts']['reports']
            v['seconds'] = r['seconds']['host']
        except (OSError, ValueError):
            r = None
        why = broke(r, vmrc)
    if why is not None:
        v.update(verdict='broken', why=why, red=v.get('red', []))
    else:
        got = leaves(r)
        v['red'] = [c for c, res in got.items() if res == 'fail']
        missed = [c for c in h['checks'] if got.get(c) != 'fail']
        v['verdict'] = 'green' if missed else 'red'
        if missed:
            v['why'] = 'not red: ' + ', '.join(
                f'{c} ({got.get(c, "not run")})' for c in missed)
            if also(v, h['checks']):
                v['why'] += f'; red instead: {", ".join(also(v, h["checks"]))}'
    json.dump(v, open(f'{out}/verdict.json', 'w'), indent=1)
    line = f"{name} {v['verdict']}"
    if 'run' in v and runs > 1:
        line += f" (run {run} of {runs})"
    if v['verdict'] != 'red':
        line += f": {v['why']}"
    else:
        line += ': ' + ', '.join(v['checks'])
        if also(v, v['checks']):
            line += f' (also red: {", ".join(also(v, v["checks"]))})'
    print(line)


def coverage(result):
    """rules.tsv's rows against a run: a row's why is None when it has a
    check and one of its mutants went red through it."""
    verdict = {v['mutant']: v['verdict'] for v in result['mutants']}
    red = {v['mutant']: set(v['red']) for v in result['mutants']
           if v['verdict'] == 'red'}
    rows = rules()
    for r in rows:
        if r['checks'] and any(red.get(m, set()) & set(r['checks'])
                               for m in r['mutants']):
            r['why'] = None
        elif r['why'] == '-':
            state = [verdict.get(m, 'not run') for m in r['mutants']]
            r['why'] = 'no mutant of it went red in this run: ' + ', '.join(
                f"{m} ({'red, but through none of these checks' if s == 'red' else s})"
                for m, s in zip(r['mutants'], state))
    return rows


def coverage_text(rows):
    covered = sum(r['why'] is None for r in rows)
    lines = textwrap.wrap(
        f"rule inventory (mutants/rules.tsv): {covered} of "
        f"{len(rows)} rules have a check and a mutant that turned it red "
        f"({100 * covered // max(len(rows), 1)}%); the other "
        f"{len(rows) - covered}, and why:", 78)
    for r in rows:
        if r['why'] is not None:
            lines += textwrap.wrap(f"{r['id']}: {r['rule']} ({r['code']})", 76,
                                   initial_indent='  ', subsequent_indent='    ',
                                   break_on_hyphens=False)
            lines += textwrap.wrap(r['why'], 76, initial_indent='    - ',
                                   subsequent_indent='      ',
                                   break_on_hyphens=False)
    return '\n'.join(lines) + '\n'


def checks_map(result):
    """Every check the control runs reported, and the mutants that turn it
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
            if also(v, named):
                what += '; also ' + ', '.join(f'`{c}`' for c in also(v, named))
        else:
            what = v.get('why') or 'none'
        code = (v.get('code') or '').replace('|', '\\|')
        verdict = v['verdict']
        if v.get('runs', 1) > 1:
            verdict += f" (run {v['run']} of {v['runs']})"
        rule = ', '.join(f'`{r}`' for r in v.get('rules', []))
        rows.append(f"| `{v['mutant']}` | {rule} | {code} | {v.get('kernel', '')} "
                    f"| {verdict} | {what} |")
    c, t = result['counts'], result['times']
    m, s = divmod(result['seconds'], 60)
    rows.append('')
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


def readme(result):
    """docs/mutants.md with each block between <!-- mutants:NAME --> and
    <!-- mutants:end --> made anew from RESULT."""
    text = open(README).read()
    for name, how in (('table', table), ('map', checks_map)):
        begin = f'<!-- mutants:{name} -->\n'
        head, sep, rest = text.partition(begin)
        _, sep2, tail = rest.partition('<!-- mutants:end -->')
        if not sep or not sep2:
            sys.exit(f'docs/mutants.md has no {begin.strip()} ... <!-- mutants:end -->')
        text = head + begin + how(result) + sep2 + tail
    return text


def check():
    """The headers, rules.tsv and the kept run agree; docs/mutants.md's
    tables are the kept run's."""
    bad, heads, rows, have = [], {}, [], known()
    try:
        rows = rules()
    except (OSError, ValueError) as e:
        bad.append(str(e))
    for n in have:
        try:
            heads[n] = header(n)
        except (OSError, ValueError) as e:
            bad.append(str(e))
    for r in rows:
        for m in r['mutants']:
            if m not in have:
                bad.append(f'mutants/rules.tsv: {r["id"]}: no mutants/{m}.patch')
            elif m in heads and not set(heads[m]['checks']) & set(r['checks']):
                bad.append(f'mutants/rules.tsv: {r["id"]}: none of its checks '
                           f'is in mutants/{m}.patch\'s Checks:')
    for n in have:
        mine = [r for r in rows if n in r['mutants']]
        extra = [c for c in heads.get(n, {}).get('checks', [])
                 if not any(c in r['checks'] for r in mine)]
        if not mine:
            bad.append(f'mutants/{n}.patch: in no row of mutants/rules.tsv')
        elif extra:
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
        named = {c for r in rows for c in r['checks']} | \
                {c for h in heads.values() for c in h['checks']}
        for c in sorted(named - set(result['checks'])):
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
    # a control run per kernel the mutants break (mainline first);
    # mutants.sh stops before this when one fails
    times = {'build': sum(v.get('build_seconds', 0) for v in mutants),
             'vm': sum(v.get('seconds', 0) for v in mutants)}
    checks, kernels = [], {}
    for c in sorted(d for d in os.listdir(out) if d.startswith('control-')):
        control = json.load(open(f'{out}/{c}/custom/vm/result.json'))
        times['vm'] += control['seconds']['host']
        checks += list(leaves(control))
        # what the cover letter says they were measured on
        for line in open(f'{out}/{c}/custom/vm/dmesg.log', errors='replace'):
            if 'Linux version ' in line:
                kernels[c[len('control-'):]] = line.split('Linux version ')[1].split()[0]
                break
        try:
            times['build'] += int(open(f'{out}/{c}/build_seconds').read())
        except (OSError, ValueError):
            pass
    result = {'ok': counts['red'] == len(mutants), 'counts': counts,
              'seconds': seconds, 'times': times, 'mutants': mutants,
              'checks': list(dict.fromkeys(checks)),
              'kernel': ', '.join(f'{k} {r}' for k, r in kernels.items()),
              'date': time.strftime('%Y-%m-%d', time.gmtime())}
    cov = coverage(result)
    result['coverage'] = {'rows': len(cov),
                          'covered': sum(r['why'] is None for r in cov),
                          'untested': [{'id': r['id'], 'why': r['why']}
                                       for r in cov if r['why']]}
    text = coverage_text(cov)
    for name, data in (('result.json', json.dumps(result, indent=1) + '\n'),
                       ('table.md', table(result)),
                       ('map.md', checks_map(result)), ('coverage.txt', text)):
        with open(f'{out}/{name}', 'w') as f:
            f.write(data)
    if set(names) == set(known()):
        sys.stdout.write(text)
    else:
        print(text.split(', and why:')[0].replace('\n', ' ') +
              f" (a partial run: {out}/coverage.txt has every row's reason)")
    m, s = divmod(seconds, 60)
    print(f"mutants: {counts['red']} red, {counts['green']} green, "
          f"{counts['broken']} broken of {len(mutants)} in {m} min {s} s; "
          f"{out}/result.json, {out}/table.md, {out}/map.md, {out}/coverage.txt")
    return 0 if result['ok'] else 1


def repath(top, *args):
    """kbuild's saved commands name the source and build trees by absolute
    path: a copied build must see the same commands with its own paths, or
    every object rebuilds."""
    def sub(data):
        for i in range(0, len(args), 2):
            data = data.replace(args[i].encode(), args[i + 1].encode())
        return data

    for d, _, names in os.walk(top):
        for p in (os.path.join(d, n) for n in names):
            if os.path.islink(p):
                link = sub(os.readlink(p).encode())
                os.unlink(p)
                os.symlink(link, p)
                continue
            data = open(p, 'rb').read()
            new = data if b'\0' in data else sub(data)
            if new != data:
                st = os.stat(p)
                open(p, 'wb').write(new)
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))


def main(a):
    cmd = a[0] if a else ''
    try:
        if cmd == '--plan':
            plan(a[1:])
        elif cmd == '--judge' and len(a) == 6:
            verdict(a[1], a[2], a[5], vmrc=a[3], run=a[4])
        elif cmd == '--broken' and len(a) == 5:
            verdict(a[1], a[2], a[4], why=a[3])
        elif cmd == '--coverage' and len(a) <= 2:
            result = json.load(open(a[1] if len(a) > 1 else KEPT))
            sys.stdout.write(coverage_text(coverage(result)))
        elif a == ['--cover']:
            sys.stdout.write(cover(json.load(open(KEPT))))
        elif a == ['--check']:
            return check()
        elif cmd == '--readme' and len(a) == 2:
            result = json.load(open(a[1]))
            for v in result['mutants']:
                v.pop('result', None)	# this machine's path
            text = readme(result)
            with open(KEPT, 'w') as f:
                f.write(json.dumps(result, indent=1) + '\n')
            with open(README, 'w') as f:
                f.write(text)
        elif cmd == '--repath' and len(a) >= 4 and len(a) % 2 == 0:
            repath(*a[1:])
        elif len(a) >= 2 and not cmd.startswith('-'):
            return gather(a[0], int(a[1]), a[2:])
        else:
            sys.exit(__doc__)
    except (OSError, ValueError) as e:
        sys.exit(f'mutants-result.py: {e}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
