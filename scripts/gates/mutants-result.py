#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mutants' headers, rules (mutants/rules.tsv), verdicts and results (docs/mutants.md).

usage: mutants-result.py --plan [NAME...]   name, kernel (- default), module 0/1, runs, race ms,
                                            schema 0/1 (guarded by its boot token, no header)
       mutants-result.py --args NAME   guest/suite.sh's -r for NAME's Checks:
       mutants-result.py --judge OUT NAME VMRC RUN KERNEL | --broken OUT NAME WHY KERNEL
       mutants-result.py OUT SECONDS NAME...   OUT/{result.json,table.md,map.md,coverage.txt}
       mutants-result.py --readme RESULT_JSON   to mutants/result.json and docs/mutants.md
       mutants-result.py --check | --cover | --coverage
       mutants-result.py --repath DIR OLD NEW [OLD NEW...]   in the files and links under DIR
"""
import glob
import json
import os
import re
import sys
import time
from contextlib import suppress
from textwrap import wrap

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
MUTANTS = f'{TOP}/mutants'
KEPT = f'{MUTANTS}/result.json'
RULES = f'{MUTANTS}/rules.tsv'
README = f'{TOP}/docs/mutants.md'
KNOWN = sorted(f[:-len('.patch')] for f in os.listdir(MUTANTS) if f.endswith('.patch'))

# fixture.variant.test, fixture.test, global.test
CHECK = re.compile(r'[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+){1,2}')
HEADER = ('Breaks', 'Code', 'Checks', 'Build', 'Kernel', 'Runs', 'Race-ms')
# a real bug put back (history-*): its fix, the commit it fixes, the releases it
# shipped in, how users saw it, and, for one the suite misses, why
HISTORY = ('Fix', 'Fixes', 'Shipped', 'Seen', 'Missed')
CRASH = ('Kernel panic', 'Oops', 'kernel BUG at', 'general protection fault',
         'Unable to handle kernel')


def split(field, where=None):
    """A comma-separated column or header value ('-': none); with WHERE, check names."""
    got = [x.strip() for x in field.split(',') if x.strip() not in ('', '-')]
    if where and (bad := [c for c in got if not CHECK.fullmatch(c)]):
        raise ValueError(f'{where}not check names: {", ".join(bad)}')
    return got


def header(name):
    """mutants/NAME.patch's header, checked: {field: value, 'checks': [], 'files': []}."""
    path = f'{MUTANTS}/{name}.patch'
    text = open(path).read()
    head = {}
    for n, line in enumerate(re.split(r'^--- ', text, maxsplit=1, flags=re.M)[0].split('\n'), 1):
        if not line.strip():
            continue
        key, sep, value = line.partition(': ')
        if not sep or key not in HEADER + HISTORY or key in head:
            raise ValueError(f'{path}:{n}: not a header line ({", ".join(HEADER + HISTORY)}), '
                             f'or a second one: {line.strip()}')
        head[key] = value.strip()
    for key in ('Breaks', 'Code', 'Checks'):
        if not split(head.get(key, '')):
            raise ValueError(f'{path}: no {key}: line')
    head['checks'] = split(head['Checks'], f'{path}: Checks: ')
    if ('Fix' in head) != all(k in head for k in HISTORY[:4]) or \
       ('Missed' in head and 'Fix' not in head):
        raise ValueError(f'{path}: a real bug has Fix:, Fixes:, Shipped: and Seen:, '
                         'and only a real bug has Missed:')
    if head.get('Build', 'module') != 'module':
        raise ValueError(f'{path}: Build: is "module" or absent')
    for key, low, high in (('Runs', 1, 10), ('Race-ms', 1, 30000)):  # the guest's bound
        if (v := head.get(key)) is not None and not (v.isdigit() and low <= int(v) <= high):
            raise ValueError(f'{path}: {key}: {v} is not in {low}..{high}')
    head['files'] = re.findall(r'^\+\+\+ b/(\S+)', text, re.M)
    # the boot token that turns the mutant on in a kernel built with others (mutants.sh)
    head['schema'] = f'"sched_state_mutant={name} "' in text
    if 'sched_state_mutant=' in text and not head['schema']:
        raise ValueError(f'{path}: a boot token other than "sched_state_mutant={name} "')
    return head


def rules():
    cols = ('id', 'rule', 'code', 'checks', 'mutants', 'why')
    lines = open(RULES).read().removesuffix('\n').split('\n')
    if len(lines[0].split('\t')) != len(cols) or not lines[0].startswith('id\t'):
        raise ValueError(f'{RULES}:1: the header line names {len(cols)} columns, id first')
    rows = []
    for n, line in enumerate(lines[1:], 2):
        if len(f := line.split('\t')) != len(cols):
            raise ValueError(f'{RULES}:{n}: {len(f)} columns, not {len(cols)}')
        row = dict(zip(cols, f))
        if any(r['id'] == row['id'] for r in rows):
            raise ValueError(f'{RULES}:{n}: a second row {row["id"]}')
        row['checks'] = split(row['checks'], f'{RULES}:{n}: ')
        row['mutants'] = split(row['mutants'])
        if bool(row['checks'] and row['mutants']) != (row['why'] == '-'):
            raise ValueError(f'{RULES}:{n}: {row["id"]}: the why column is "-" exactly when '
                             'the row has a check and a mutant')
        rows.append(row)
    return rows


def plan(names):
    # all: grouped by the file they patch, so a reverted file is recompiled once more at most
    if unknown := [n for n in names if n not in KNOWN]:
        raise ValueError(f'no mutant {unknown[0]}; known: {" ".join(KNOWN)}')
    heads = {n: header(n) for n in names or KNOWN}
    for n in names or sorted(heads, key=lambda n: (heads[n]['files'][:1], n)):
        h = heads[n]
        alone = 'Build' in h or any(f.endswith('.h') for f in h['files'])
        print('\t'.join((n, h.get('Kernel', '-'), str(int('Build' in h)), h.get('Runs', '1'),
                         h.get('Race-ms', '0'), str(int(h['schema'] and not alone)))))


def leaves(result):
    """{check: result}: the leaves under the top-level programs of a VM run's result."""
    return {t['name']: t['result'] for t in result['tests']
            if t['depth'] >= 1 and not t['children']}


def broke(r, vmrc):
    """Why a VM run's result.json R says the kernel or the run broke."""
    if not r:
        return f'no result.json from the VM run (rc {vmrc})'
    if r['seconds']['guest_boot'] is None:
        return 'the kernel did not reach /init'
    if r['timed_out']:
        return next((p for p in r['problems'] if p.startswith('TIMEOUT')), 'VM timeout')
    # a crash, if only in part: what the suite saw then is its doing
    crash = [k['text'].strip() for k in r['kernel_reports'] if any(c in k['text'] for c in CRASH)]
    if crash:
        return crash[0]
    if r['guest_rc'] is None:
        return "the guest crashed or hung: no 'SCHED_STATE_GUEST: done' line"
    return 'the suite reported no result' if r['counts']['top'] == 0 else None


def verdict(out, name, kernel, vmrc=None, run=1, why=None):
    """OUT/verdict.json and its line: broken (WHY, broke(), or a Checks: entry not run),
    red if every Checks: entry failed, else green."""
    h = header(name)
    v = {'mutant': name, 'breaks': h['Breaks'], 'code': h['Code'], 'checks': h['checks'],
         'rules': [r['id'] for r in rules() if name in r['mutants']], 'kernel': kernel}
    if 'Fix' in h:
        v['history'] = {k.lower(): h[k] for k in HISTORY if k in h}
    got = {}
    if why is None:
        v.update(run=int(run), runs=int(h.get('Runs', '1')), verdict=None, why=None, red=[],
                 reports=0)
        if 'Race-ms' in h:
            v['race_ms'] = int(h['Race-ms'])
        with suppress(OSError, ValueError):
            v['build_seconds'] = int(open(f'{out}/build_seconds').read())
        r = None
        with suppress(OSError, ValueError):
            r = json.load(open(f'{out}/custom/vm/result.json'))
            v.update(reports=r['counts']['reports'], seconds=r['seconds']['host'])
        if (why := broke(r, vmrc)) is None:
            got = leaves(r)
    red = [c for c, res in got.items() if res == 'fail']
    missed = [c for c in h['checks'] if got.get(c) != 'fail']
    # the run runs the Checks: alone (--args): one that did not run proves nothing
    if why is None and (lost := [c for c in h['checks'] if c not in got]):
        why = f"not run: {', '.join(lost)} (not in this kernel's suite, or the run broke)"
    state = 'broken' if why is not None else 'green' if missed else 'red'
    if state == 'green':
        why = 'not red: ' + ', '.join(f'{c} ({got[c]})' for c in missed)
        if 'Missed' in h:	# a real bug the suite is known not to catch: data, not a failure
            state, why = 'missed', f"missed ({h['Missed']}); {why}"
    v.update(verdict=state, why=why, red=red)
    json.dump(v, open(f'{out}/verdict.json', 'w'), indent=1)
    if state == 'red':
        why = ', '.join(h['checks']) + ' failed, run alone'
    print(f"{name} {state}" + (f" (run {run} of {v['runs']})" if v.get('runs', 1) > 1 else '')
          + f': {why}')


def coverage(result):
    """result['coverage'] and its text: the rules.tsv rows with a mutant red through a check."""
    verdict = {v['mutant']: v['verdict'] for v in result['mutants']}
    red = {v['mutant']: set(v['red']) for v in result['mutants'] if v['verdict'] == 'red'}
    rows = rules()
    for r in rows:
        if any(red.get(m, set()) & set(r['checks']) for m in r['mutants']):
            r['why'] = None
        elif r['why'] == '-':
            r['why'] = 'no mutant of it went red in this run: ' + ', '.join(
                f"{m} ({'red, but through none of these checks' if s == 'red' else s})"
                for m, s in ((m, verdict.get(m, 'not run')) for m in r['mutants']))
    covered = sum(r['why'] is None for r in rows)
    result['coverage'] = {'rows': len(rows), 'covered': covered,
                          'untested': [{'id': r['id'], 'why': r['why']} for r in rows if r['why']]}
    lines = wrap(f"rule inventory (mutants/rules.tsv): {covered} of {len(rows)} rules have a "
                 f"check and a mutant that turned it red ({100 * covered // max(len(rows), 1)}%"
                 f"); the other {len(rows) - covered}, and why:", 78)
    for r in (r for r in rows if r['why'] is not None):
        lines += wrap(f"{r['id']}: {r['rule']} ({r['code']})", 76, initial_indent='  ',
                      subsequent_indent='    ', break_on_hyphens=False)
        lines += wrap(r['why'], 76, initial_indent='    - ', subsequent_indent='      ',
                      break_on_hyphens=False)
    return '\n'.join(lines) + '\n'


def esc(cell):
    return cell.replace('|', '\\|')     # a markdown table's cell


def md(head, rows, *tail):
    lines = [f"| {' | '.join(r)} |" for r in [head, ['---'] * len(head)] + rows]
    return '\n'.join(lines + list(tail)) + '\n'


def checks_map(result):
    """Each check the control runs reported: the code and mutants that turn it red."""
    rows = []
    for check in result['checks']:
        red = [v for v in result['mutants'] if v['verdict'] == 'red' and check in v['red']]
        code = sorted({(v.get('code') or '').split(':')[0] for v in red})
        rows.append([f'`{check}`', esc('; '.join(code)) or '(none yet)',
                     ', '.join(f"`{v['mutant']}`" for v in red) or '(none yet)'])
    reached = sum(r[2] != '(none yet)' for r in rows)
    return md(['check', 'the kernel code it guards', 'mutants that turn it red'], rows,
              '', f"{reached} of {len(rows)} checks turn red under some mutant.")


def table(result):
    rows = []
    for v in result['mutants']:
        what = (', '.join(f'`{c}`' for c in v.get('checks') or v['red'])
                if v['verdict'] == 'red' else v.get('why') or 'none')
        ran = f" (run {v['run']} of {v['runs']})" if v.get('runs', 1) > 1 else ''
        rows.append([f"`{v['mutant']}`", ', '.join(f'`{r}`' for r in v.get('rules', [])),
                     esc(v.get('code') or ''), v.get('kernel', ''), v['verdict'] + ran, what])
    c, t, cov = result['counts'], result['times'], result['coverage']
    m, s = divmod(result['seconds'], 60)
    tail = ['', f"{c['red']} red, {c['green']} green, {c.get('missed', 0)} missed, "
            f"{c['broken']} broken of {len(rows)} mutants; {m} min {s} s in all, the control "
            f"runs included: {t['build']} s building and staging, {t['vm']} s in the VMs, "
            "the guests running beside the builds."]
    tail += ['', f"Rule inventory (`mutants/rules.tsv`): {cov['covered']} of "
             f"{cov['rows']} rules have a check and a mutant that turned it red in this run."]
    return md(['mutant', 'rule', 'the kernel code it breaks', 'kernel', 'verdict',
               'checks that went red'], rows, *tail)


def readme(result):
    """docs/mutants.md, its blocks <!-- mutants:NAME -->...<!-- mutants:end --> anew."""
    text = open(README).read()
    for name, how in (('table', table), ('map', checks_map), ('history', history)):
        text, found = re.subn(f'(<!-- mutants:{name} -->\n).*?(<!-- mutants:end -->)',
                              lambda m: m[1] + how(result) + m[2], text, count=1, flags=re.S)
        if not found:
            sys.exit(f'docs/mutants.md has no <!-- mutants:{name} --> ... <!-- mutants:end -->')
    return text


def check():
    """The headers, rules.tsv, the kept run and docs/mutants.md's tables agree."""
    bad = []

    def load(how, *args, pre='', post=''):
        try:
            return how(*args)
        except (OSError, ValueError) as e:
            bad.append(f'{pre}{e}{post}')

    rows = load(rules) or []
    heads = {n: h for n in KNOWN if (h := load(header, n))}
    for r in rows:
        for m in r['mutants']:
            if m not in KNOWN:
                bad.append(f'mutants/rules.tsv: {r["id"]}: no mutants/{m}.patch')
            elif m in heads and not set(heads[m]['checks']) & set(r['checks']) \
                    and 'Missed' not in heads[m]:
                bad.append(f'mutants/rules.tsv: {r["id"]}: none of its checks is in '
                           f'mutants/{m}.patch\'s Checks:')
    for n in KNOWN:
        mine = [r for r in rows if n in r['mutants']]
        extra = [c for c in heads.get(n, {}).get('checks', [])
                 if not any(c in r['checks'] for r in mine)]
        if not mine:
            bad.append(f'mutants/{n}.patch: in no row of mutants/rules.tsv')
        elif extra and 'Missed' not in heads[n]:
            bad.append(f'mutants/{n}.patch: Checks: {", ".join(extra)}: in no row of '
                       'mutants/rules.tsv that lists it')
    if result := load(lambda: json.load(open(KEPT)), pre=f'{KEPT}: ', post=' (run make mutants)'):
        ran = {v['mutant'] for v in result['mutants']}
        bad += [f'mutants/{n}.patch: not in mutants/result.json (run make mutants)'
                for n in sorted(set(KNOWN) - ran)]
        bad += [f'mutants/result.json: {n} has no mutants/{n}.patch'
                for n in sorted(ran - set(KNOWN))]
        named = {c for x in rows + list(heads.values()) for c in x['checks']}
        bad += [f"{c}: named in mutants/ but not a check of the last make mutants' control runs"
                for c in sorted(named - set(result['checks']))]
        if readme(result) != open(README).read():
            bad.append('docs/mutants.md: the mutants tables are not those of '
                       'mutants/result.json (scripts/gates/mutants-result.py --readme)')
    sys.stdout.write(''.join(f'{b}\n' for b in bad))
    return 1 if bad else 0


def history(result, text=False):
    """The real bugs put back (mutants with Fix:): a table, or lines, and how many went red."""
    rows = [v for v in result['mutants'] if v.get('history')]
    if not rows:
        return ''
    released = [v for v in rows if not v['history']['shipped'].startswith('never')]
    red = sum(v['verdict'] == 'red' for v in released)
    line = (f"{red} of {len(released)} real regressions caught (bugs that reached a release "
            "or an -rc; each one missed says why)")
    if len(rows) > len(released):
        line += (f"; with the {len(rows) - len(released)} fixed before any release, "
                 f"{sum(v['verdict'] == 'red' for v in rows)} of {len(rows)}")
    line += '.'
    # each one's verdict: the checks that went red, else why not
    what = [f"{v['verdict']}: " + (', '.join(v['checks']) if v['verdict'] == 'red' else
                                   v['history'].get('missed') or v.get('why') or '')
            for v in rows]
    if text:
        lines = wrap(line, 72)
        for v, w in zip(rows, what):
            hi = v['history']
            lines += wrap(f"{hi['fix']} [{', '.join(v.get('rules', []))}]", 72,
                          initial_indent='  ', subsequent_indent='    ')
            for s in (f"fixes {hi['fixes']}; shipped {hi['shipped']}", w):
                lines += wrap(s, 72, initial_indent='    ', subsequent_indent='    ')
        return lines
    return md(['real bug (mutant)', 'fix', 'it fixes', 'shipped in', 'rule', 'verdict'],
              [[f"`{v['mutant']}`", *(esc(v['history'][k]) for k in ('fix', 'fixes', 'shipped')),
                ', '.join(f'`{r}`' for r in v.get('rules', [])), esc(w)]
               for v, w in zip(rows, what)], '', line)


def cover(result):
    lines = wrap(f"Kernel mutants ({result.get('date')}, {result.get('kernel')}): each a one-line "
                 "regression in the kernel file named, built, booted and run with the suite, "
                 "which must turn the checks named red:", 72, break_on_hyphens=False)
    for v in result['mutants']:
        what = ', '.join(v['checks']) if v['verdict'] == 'red' else v['why']
        rule = f" [{', '.join(v['rules'])}]" if v.get('rules') else ''
        lines.append(f"  {v['mutant']} ({(v.get('code') or '').split(':')[0]}, "
                     f"{v.get('kernel')}){rule}:")
        lines += wrap(f"{v['verdict']}: {what}", 72, initial_indent='    ',
                      subsequent_indent='    ')
    c, cov = result['counts'], result['coverage']
    lines.append(f"  {c['red']} red, {c['green']} green, {c.get('missed', 0)} missed, "
                 f"{c['broken']} broken of {len(result['mutants'])}.")
    lines += wrap(f"Of {cov['rows']} rules listed from the task-state code, {cov['covered']} "
                  "have a check and a mutant that turned it red; the others have no check, no "
                  "mutant that boots, or cannot be observed from a selftest.", 72)
    if h := history(result, text=True):
        lines += ['', 'Real regressions, each put back by undoing its fix:'] + h
    for f in sorted(glob.glob(f'{MUTANTS}/race-*.json')):     # make race-power KEEP=1's
        r = json.load(open(f))
        lines += [''] + wrap(f"The race's power ({r['check']}, {r['date']}, {r['kernel']}, "
                             f"{r['runs']} runs each): {r['summary']}.", 72)
    return '\n'.join(lines) + '\n'


def gather(out, seconds, names):
    mutants = [json.load(open(f'{out}/{n}/verdict.json')) for n in names]
    counts = {k: sum(v['verdict'] == k for v in mutants)
              for k in ('red', 'green', 'missed', 'broken')}
    times = {'build': sum(v.get('build_seconds', 0) for v in mutants),
             'vm': sum(v.get('seconds', 0) for v in mutants)}
    # a control run per kernel (mutants.sh stops before this when one fails)
    checks, kernels = [], {}
    for c in sorted(d for d in os.listdir(out) if d.startswith('control-')):
        control = json.load(open(f'{out}/{c}/custom/vm/result.json'))
        times['vm'] += control['seconds']['host']
        times['build'] += int(open(f'{out}/{c}/build_seconds').read())
        checks += list(leaves(control))
        dmesg = open(f'{out}/{c}/custom/vm/dmesg.log', errors='replace').read()
        if found := re.search(r'Linux version (\S+)', dmesg):
            kernels[c[len('control-'):]] = found[1]
    result = {'ok': counts['red'] + counts['missed'] == len(mutants), 'counts': counts,
              'seconds': seconds, 'times': times, 'mutants': mutants,
              'checks': list(dict.fromkeys(checks)),
              'kernel': ', '.join(f'{k} {r}' for k, r in kernels.items()),
              'date': time.strftime('%Y-%m-%d', time.gmtime())}
    text = coverage(result)
    files = {'result.json': json.dumps(result, indent=1) + '\n', 'table.md': table(result),
             'map.md': checks_map(result), 'coverage.txt': text}
    for name, data in files.items():
        open(f'{out}/{name}', 'w').write(data)
    print(text.split(', and why:')[0].replace('\n', ' ') + f" ({out}/coverage.txt says why)")
    m, s = divmod(seconds, 60)
    print(f"mutants: {counts['red']} red, {counts['green']} green, {counts['missed']} missed "
          f"(real bugs), {counts['broken']} broken of {len(mutants)} in {m} min {s} s; "
          + ', '.join(f'{out}/{n}' for n in files))
    if h := history(result, text=True):
        print(h[0])
    return 0 if result['ok'] else 1


def repath(top, *args):
    """OLD paths to NEW in a copied build, its times kept, or kbuild rebuilds it all."""
    def sub(data):
        for i in range(0, len(args), 2):
            data = data.replace(args[i].encode(), args[i + 1].encode())
        return data

    for d, _, names in os.walk(top):
        for p in (os.path.join(d, n) for n in names):
            if os.path.islink(p):
                os.symlink(sub(os.readlink(p).encode()), f'{p}.new')
                os.replace(f'{p}.new', p)
            elif b'\0' not in (data := open(p, 'rb').read()) and sub(data) != data:
                st = os.stat(p)
                open(p, 'wb').write(sub(data))
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))


def main(a):
    cmd = a[0] if a else ''
    try:
        if cmd == '--plan':
            plan(a[1:])
        elif cmd == '--args' and len(a) == 2:   # guest/suite.sh's -r: the run runs them alone
            print(' '.join(f'-r {c}' for c in header(a[1])['checks']))
        elif cmd == '--judge' and len(a) == 6:
            verdict(a[1], a[2], a[5], vmrc=a[3], run=a[4])
        elif cmd == '--broken' and len(a) == 5:
            verdict(a[1], a[2], a[4], why=a[3])
        elif a in (['--coverage'], ['--cover']):
            sys.stdout.write((coverage if cmd == '--coverage' else cover)(json.load(open(KEPT))))
        elif a == ['--check']:
            return check()
        elif cmd == '--readme' and len(a) == 2:
            text = readme(result := json.load(open(a[1])))
            open(KEPT, 'w').write(json.dumps(result, indent=1) + '\n')
            open(README, 'w').write(text)
            print("mutants: docs/mutants.md's tables and mutants/result.json made anew")
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
