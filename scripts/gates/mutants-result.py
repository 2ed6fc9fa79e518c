#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gather scripts/gates/mutants.sh's verdicts into OUT/result.json and two
markdown tables, OUT/table.md (a row per mutant) and OUT/map.md (a row per
check of the control run: the kernel code the mutants that turn it red
break); exit 1 if any mutant is green or broken.

usage: mutants-result.py OUT SECONDS NAME...
                       (each NAME's OUT/NAME/verdict.json)
       mutants-result.py --table RESULT_JSON   (print the mutants' table)
       mutants-result.py --map RESULT_JSON     (print the checks' map)
       mutants-result.py --readme RESULT_JSON  (a run of every mutant: keep
                                                its data in mutants/result.json,
                                                and both tables in docs/mutants.md)
       mutants-result.py --cover               (mutants/result.json for the
                                                series' cover letter)
       mutants-result.py --check               (docs/mutants.md's tables are those
                                                of mutants/result.json, which
                                                has every mutants/*.patch)
"""
import glob
import os
import time
import json
import sys
import textwrap


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
    rows = ['| mutant | the kernel code it breaks | kernel | verdict | checks that went red |',
            '| --- | --- | --- | --- | --- |']
    for v in result['mutants']:
        if v['verdict'] == 'red':
            what = ', '.join(f'`{c}`' for c in v['red'])
        elif v['verdict'] == 'broken':
            what = v['why']
        else:
            what = 'none'
        code = (v.get('code') or '').replace('|', '\\|')
        verdict = v['verdict']
        if v.get('runs', 1) > 1:
            verdict += f" (run {v['run']} of {v['runs']})"
        rows.append(f"| `{v['mutant']}` | {code} | {v.get('kernel', '')} "
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
    return '\n'.join(rows) + '\n'


TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
KEPT = f'{TOP}/mutants/result.json'
README = f'{TOP}/docs/mutants.md'
MARKS = {'table': table, 'map': checks_map}


def readme(result):
    """docs/mutants.md with each block between <!-- mutants:NAME --> and
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
    result = json.load(open(KEPT))
    ran = {v['mutant'] for v in result['mutants']}
    have = {os.path.basename(p)[:-len('.patch')]
            for p in glob.glob(f'{TOP}/mutants/*.patch')}
    bad = 0
    for n in sorted(have - ran):
        print(f'mutants/{n}.patch: not in mutants/result.json (run make mutants)')
        bad = 1
    for n in sorted(ran - have):
        print(f'mutants/result.json: {n} has no mutants/{n}.patch')
        bad = 1
    if readme(result) != open(README).read():
        print('docs/mutants.md: the mutants tables are not those of '
              'mutants/result.json (scripts/gates/mutants-result.py --readme)')
        bad = 1
    return bad


def cover(result):
    """The cover letter's lines: each mutant, its verdict and the checks
    it turned red."""
    lines = textwrap.wrap(f"Kernel mutants (make mutants, {result.get('date')}, "
                          f"{result.get('kernel')}): a one-line regression "
                          "each, in the kernel file named; the suite must "
                          "turn red:", 72, break_on_hyphens=False)
    for v in result['mutants']:
        what = ', '.join(v['red']) if v['verdict'] == 'red' else v.get('why') or ''
        lines.append(f"  {v['mutant']} ({(v.get('code') or '').split(':')[0]}, "
                     f"{v.get('kernel')}):")
        lines += textwrap.wrap(f"{v['verdict']}: {what}", 72,
                               initial_indent='    ', subsequent_indent='    ')
    c = result['counts']
    lines.append(f"  {c['red']} red, {c['green']} green, {c['broken']} broken "
                 f"of {len(result['mutants'])}.")
    return '\n'.join(lines) + '\n'


def main():
    if sys.argv[1] == '--cover':
        sys.stdout.write(cover(json.load(open(KEPT))))
        return 0
    if sys.argv[1] == '--check':
        return check()
    if sys.argv[1] == '--readme':
        result = json.load(open(sys.argv[2]))
        for v in result['mutants']:
            v.pop('result', None)	# this machine's path
        with open(KEPT, 'w') as f:
            json.dump(result, f, indent=1)
            f.write('\n')
        text = readme(result)
        with open(README, 'w') as f:
            f.write(text)
        return 0
    if sys.argv[1] in ('--table', '--map'):
        how = table if sys.argv[1] == '--table' else checks_map
        sys.stdout.write(how(json.load(open(sys.argv[2]))))
        return 0
    out, seconds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
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
        checks += [t['name'] for t in control['tests']
                   if t['depth'] >= 1 and not t['children']]
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
    with open(f'{out}/result.json', 'w') as f:
        json.dump(result, f, indent=1)
        f.write('\n')
    with open(f'{out}/table.md', 'w') as f:
        f.write(table(result))
    with open(f'{out}/map.md', 'w') as f:
        f.write(checks_map(result))
    m, s = divmod(seconds, 60)
    print(f"mutants: {counts['red']} red, {counts['green']} green, "
          f"{counts['broken']} broken of {len(mutants)} in {m} min {s} s; "
          f"{out}/result.json, {out}/table.md, {out}/map.md")
    return 0 if result['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
