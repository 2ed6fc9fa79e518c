#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gather scripts/mutants.sh's verdicts into OUT/result.json and a markdown
table, OUT/table.md; exit 1 if any mutant is green or broken.

usage: mutants.py OUT SECONDS NAME...   (each NAME's OUT/NAME/verdict.json)
       mutants.py --table RESULT_JSON   (print the table of a result.json)
"""
import json
import sys


def table(result):
    rows = ['| mutant | the kernel code it breaks | verdict | checks that went red |',
            '| --- | --- | --- | --- |']
    for v in result['mutants']:
        if v['verdict'] == 'red':
            what = ', '.join(f'`{c}`' for c in v['red'])
        elif v['verdict'] == 'broken':
            what = v['why']
        else:
            what = 'none'
        code = (v.get('code') or '').replace('|', '\\|')
        rows.append(f"| `{v['mutant']}` | {code} | {v['verdict']} | {what} |")
    c = result['counts']
    m, s = divmod(result['seconds'], 60)
    rows.append('')
    t = result['times']
    rows.append(f"{c['red']} red, {c['green']} green, {c['broken']} broken "
                f"of {len(result['mutants'])} mutants; {m} min {s} s in all, "
                f"the control run included: {t['build']} s building and "
                f"staging, {t['vm']} s in the VMs, the rest waiting for the "
                "machine's VM lock (other guests).")
    return '\n'.join(rows) + '\n'


def main():
    if sys.argv[1] == '--table':
        sys.stdout.write(table(json.load(open(sys.argv[2]))))
        return 0
    out, seconds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    mutants = [json.load(open(f'{out}/{n}/verdict.json')) for n in names]
    counts = {k: sum(v['verdict'] == k for v in mutants)
              for k in ('red', 'green', 'broken')}
    try:
        control = json.load(open(f'{out}/control/custom/vm/result.json'))
        control_vm = control['seconds']['host']
    except (OSError, ValueError, KeyError):
        control_vm = 0
    try:
        control_build = int(open(f'{out}/control/build_seconds').read())
    except (OSError, ValueError):
        control_build = 0
    times = {'build': control_build +
             sum(v.get('build_seconds', 0) for v in mutants),
             'vm': control_vm + sum(v.get('seconds', 0) for v in mutants)}
    result = {'ok': counts['red'] == len(mutants), 'counts': counts,
              'seconds': seconds, 'times': times, 'mutants': mutants}
    with open(f'{out}/result.json', 'w') as f:
        json.dump(result, f, indent=1)
        f.write('\n')
    with open(f'{out}/table.md', 'w') as f:
        f.write(table(result))
    m, s = divmod(seconds, 60)
    print(f"mutants: {counts['red']} red, {counts['green']} green, "
          f"{counts['broken']} broken of {len(mutants)} in {m} min {s} s; "
          f"{out}/result.json, {out}/table.md")
    return 0 if result['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
