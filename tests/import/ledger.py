#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The vCPU ledger of an import (model.h R10, user/lib/ledger_fold.h) held against the streams.

Usage: ledger.py LABEL LIST.json [--truth TRUTH.json]
LIST.json is `pwz-render --list --json` of the imported cdict. For every vCPU: its states add
up to its ledger's life and that is its life from the streams; ready is its waits' time and
the ready causes add up to it; the on-CPU states (guest, exit_*, other_on_cpu) fit in its
runtime and the off-CPU ones (halt, ready) in the rest, unseen holding the difference; the
on-CPU part of its exits' handling lies in its exit states; exit_kernel's entries are its
exits. A VM's states are its vCPUs' sums. With the truth: guest's entries are its kvm_entry
events, exit_user's its kvm_userspace_exit events. Prints ok/FAIL lines, then
"LABEL: N passed, N failed".
"""
import json
import sys

ON = ('guest', 'exit_kernel', 'exit_user', 'halt_poll', 'other_on_cpu')
OFF = ('halt', 'ready')
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print(f'ok: {LABEL}: {what}')
    else:
        failed += 1
        print(f'FAIL: {LABEL}: {what}')


def ns(row, state):
    return row['states'][state]['ns']


def check_vcpu(vc, truth):
    name = f"{vc['name']} (tid {vc['tid']})"
    total = sum(s['ns'] for s in vc['states'].values())
    on = sum(ns(vc, s) for s in ON)
    off = sum(ns(vc, s) for s in OFF)
    unseen = ns(vc, 'unseen')
    check(total == vc['ledger_alive_ns'] == vc['alive_ns'],
          f"{name}: states {total} == ledger_alive_ns {vc['ledger_alive_ns']} == alive_ns {vc['alive_ns']}")
    check(ns(vc, 'ready') == vc['ready_ns'],
          f"{name}: ready {ns(vc, 'ready')} == the waits' ready_ns {vc['ready_ns']}")
    causes = sum(vc['ready_causes'].values())
    check(causes == ns(vc, 'ready'), f"{name}: ready causes {causes} == ready {ns(vc, 'ready')}")
    check(vc['costop_ns'] <= ns(vc, 'ready'), f"{name}: co-stop {vc['costop_ns']} <= ready")
    run = vc['running_ns'] + vc['unseen_ns']
    check(on <= run <= on + unseen,
          f"{name}: on-CPU states {on} <= runtime {run} <= on-CPU states + unseen {on + unseen}")
    rest = vc['alive_ns'] - run
    check(off <= rest <= off + unseen,
          f"{name}: halt + ready {off} <= off-CPU time {rest} <= halt + ready + unseen {off + unseen}")
    handled = sum(e['on_cpu_ns'] for e in vc['exits'])
    exit_states = ns(vc, 'exit_kernel') + ns(vc, 'exit_user') + ns(vc, 'halt_poll')
    check(handled <= exit_states,
          f"{name}: the exits' on-CPU handling {handled} <= exit_kernel + exit_user + halt_poll {exit_states}")
    check(vc['states']['exit_kernel']['count'] == vc['exits_total'],
          f"{name}: exit_kernel entries {vc['states']['exit_kernel']['count']} == exits {vc['exits_total']}")
    th = truth.get(vc['tid'])
    if th:
        ev = th.get('kvm_events', {})
        check(vc['states']['guest']['count'] == th['kvm_entry'],
              f"{name}: guest entries {vc['states']['guest']['count']} == truth kvm_entry {th['kvm_entry']}")
        want = ev.get('kvm:kvm_userspace_exit', 0)
        check(vc['states']['exit_user']['count'] == want,
              f"{name}: exit_user entries {vc['states']['exit_user']['count']} == truth kvm_userspace_exit {want}")


def main():
    global LABEL
    LABEL = sys.argv[1]
    listing = json.load(open(sys.argv[2]))
    truth = {}
    if len(sys.argv) > 4 and sys.argv[3] == '--truth':
        truth = {t['tid']: t for t in json.load(open(sys.argv[4])).get('vcpu_threads', [])}
    vms = listing.get('vms', [])
    check(vms and all('states' in vc for vm in vms for vc in vm['vcpus']),
          f"{len(vms)} VM(s), every vCPU with a ledger")
    for vm in vms:
        for vc in vm['vcpus']:
            if 'states' in vc:
                check_vcpu(vc, truth)
        for s in vm.get('states', {}):
            want = sum(vc['states'][s]['ns'] for vc in vm['vcpus'] if 'states' in vc)
            check(vm['states'][s]['ns'] == want,
                  f"VM {vm['name']}: {s} {vm['states'][s]['ns']} == its vCPUs' {want}")
        want = sum(vc['costop_ns'] for vc in vm['vcpus'] if 'states' in vc)
        check(vm.get('costop_ns') == want, f"VM {vm['name']}: co-stop {vm.get('costop_ns')} == its vCPUs' {want}")
    print(f'{LABEL}: {passed} passed, {failed} failed')


LABEL = 'ledger'
if __name__ == '__main__':
    main()
