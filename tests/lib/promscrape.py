# SPDX-License-Identifier: GPL-2.0
"""pwz-bpf --serve for the tests: a server started on a free loopback port, and its pages
parsed as the Prometheus text exposition format (tests/serve, tests/vms)."""
import os
import re
import subprocess
import time
import urllib.error
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, ((label, value), ...)): value} of a page, and the list of problems found."""
    out, bad, typed = {}, [], {}
    for line in text.splitlines():
        if line.startswith('# HELP '):
            continue
        if line.startswith('# TYPE '):
            _, _, name, kind = line.split(' ', 3)
            typed[name] = kind
            continue
        m = SAMPLE.match(line)
        if not m:
            bad.append('not a sample: %r' % line)
            continue
        name = m.group(1)
        labels = tuple(LABEL.findall(m.group(3) or ''))
        base = re.sub(r'_(bucket|sum|count)$', '', name)
        if name not in typed and typed.get(base) != 'histogram':
            bad.append('%s: no TYPE before it' % name)
        elif typed.get(name) == 'counter' and not name.endswith('_total'):
            bad.append('%s: a counter not named _total' % name)
        out[(name, labels)] = float(m.group(4)) if '.' in m.group(4) else int(m.group(4))
    return out, bad


class Server:
    """pwz_bpf --serve 127.0.0.1:0 args, its stderr in tmp/name.err; addr (host, port) once it
    said where it serves, else None; p the process, for the caller to end."""

    def __init__(self, pwz_bpf, tmp, args=(), name='serve'):
        self.err_path = os.path.join(tmp, name + '.err')
        self.errf = open(self.err_path, 'w')
        self.t_start = time.time()
        self.p = subprocess.Popen([pwz_bpf, '--serve', '127.0.0.1:0', *args],
                                  stdout=subprocess.DEVNULL, stderr=self.errf)
        self.addr = None
        end = time.time() + 60
        while time.time() < end and self.p.poll() is None:
            m = re.search(r'serving http://([0-9.]+):(\d+)/metrics', open(self.err_path).read())
            if m:
                self.addr = (m.group(1), int(m.group(2)))
                break
            time.sleep(0.1)

    def url(self, path='/metrics'):
        return 'http://%s:%d%s' % (self.addr[0], self.addr[1], path)

    def scrape(self):
        """(page, text, t_before, t_after) of one GET /metrics."""
        t0 = time.monotonic()
        with urllib.request.urlopen(self.url(), timeout=10) as r:
            text = r.read().decode('utf-8')
            ctype = r.headers.get('Content-Type', '')
        t1 = time.monotonic()
        page, bad = parse(text)
        return page, text, t0, t1, ctype, bad

    def fetch(self, accept):
        """(Content-Type, text) of one GET /metrics with that Accept header (None: none)."""
        req = urllib.request.Request(self.url(), headers={'Accept': accept} if accept else {})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers.get('Content-Type', ''), r.read().decode('utf-8')

    def status(self, method='GET', path='/metrics'):
        req = urllib.request.Request(self.url(path), method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def stderr(self):
        return open(self.err_path).read().strip()
