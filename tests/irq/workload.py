#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# tests/irq's load, run as pwz-bpf's command: block I/O and loopback UDP, and a spinner (one process each: its pid is its tid).
"""
workload.py OUT SPIN_CPU IO_CPU SECONDS FILE

Reads /proc/softirqs, /proc/interrupts and /proc/stat once the capture runs (pwz-bpf releases
its command after attaching), then for SECONDS: a thread named irqspin busy-loops on SPIN_CPU,
and a process named irqio on IO_CPU reads FILE with O_DIRECT (4 KiB at random offsets: one
disk interrupt each, and a BLOCK softirq on the CPU the disk's IRQ lands on) and sends UDP
datagrams to itself over loopback (NET_RX softirqs on IO_CPU, run in irqio's own context).
Then reads the three files again and writes OUT (JSON): the tids, the reads and sends done,
and both snapshots of the three files.
"""
import json
import mmap
import os
import random
import socket
import sys
import time


def snap():
    out = {}
    for name in ('softirqs', 'interrupts', 'stat'):
        with open('/proc/' + name) as f:
            out[name] = f.read()
    return out


def set_comm(name):
    with open('/proc/self/comm', 'w') as f:
        f.write(name)


def spinner(cpu, seconds, rfd):
    os.sched_setaffinity(0, {cpu})
    set_comm('irqspin')
    os.write(rfd, b'%d\n' % os.getpid())
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def io(cpu, seconds, path, rfd):
    os.sched_setaffinity(0, {cpu})
    set_comm('irqio')
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    blocks = os.fstat(fd).st_size // 4096
    buf = mmap.mmap(-1, 4096)
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(('127.0.0.1', 0))
    rx.setblocking(False)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst = rx.getsockname()
    reads = sends = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        os.preadv(fd, [buf], random.randrange(blocks) * 4096)
        reads += 1
        for _ in range(4):
            tx.sendto(b'x' * 64, dst)
            sends += 1
        try:
            while True:
                rx.recv(2048)
        except BlockingIOError:
            pass
    os.write(rfd, b'%d %d %d\n' % (os.getpid(), reads, sends))


def main():
    out, spin_cpu, io_cpu, seconds, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        float(sys.argv[4]), sys.argv[5]
    r, w = os.pipe()
    s0 = snap()
    kids = []
    for fn, args in ((spinner, (spin_cpu, seconds, w)), (io, (io_cpu, seconds, path, w))):
        pid = os.fork()
        if pid == 0:
            try:
                fn(*args)
            finally:
                os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
    s1 = snap()
    os.close(w)
    lines = os.read(r, 4096).decode().split('\n')
    spin_tid = int(lines[0]) if len(lines[0].split()) == 1 else int(lines[1])
    io_line = [x for x in lines if len(x.split()) == 3][0].split()
    with open(out, 'w') as f:
        json.dump({'spin_tid': spin_tid, 'io_tid': int(io_line[0]), 'reads': int(io_line[1]),
                   'sends': int(io_line[2]), 'before': s0, 'after': s1}, f)


main()
