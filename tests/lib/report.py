# SPDX-License-Identifier: GPL-2.0
"""The Python suites' one reporter; tests/lib/report.sh is the same for the bash suites.

A suite imports it (sys.path gets tests/lib) and counts its checks in one of two ways:
- report(ok, name, why) and skip(name, why) print and count one check, as report.sh's ok, fail
  and skip print them ("ok: NAME", "FAIL: NAME: WHY", "skip: NAME: WHY");
- run_test(fn, *args) runs a test function that raises Fail (check(cond, msg) does) or Skip,
  and counts it as one check, passed, failed or skipped (any other exception fails it, with
  its traceback), printed with the seconds it took.
add(p, f, s) counts what a sub-run printed in its own closing line. done(label) prints the
suite's duration ("LABEL: took N.N s"), then "LABEL: N passed, N failed, N skipped", which
tests/run-check-suites reads as the suite's last such line, and returns the exit status.
"""
import sys
import time
import traceback

passed = failed = skipped = 0
_start = time.monotonic()


class Fail(Exception):
    """A check of a run_test() function failed: the message says what was wrong."""


class Skip(Exception):
    """A run_test() function cannot run here: the message says why."""


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def report(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok: " + name)
    else:
        failed += 1
        print("FAIL: %s%s" % (name, ": " + why if why else ""))
    sys.stdout.flush()
    return ok


def skip(name, why):
    global skipped
    skipped += 1
    print("skip: %s: %s" % (name, why))
    sys.stdout.flush()


def add(p, f, s=0):
    global passed, failed, skipped
    passed += p
    failed += f
    skipped += s


def run_test(fn, *args, name=None):
    """Runs fn(*args) as one check named name (default fn's), its seconds after the name."""
    name = name or fn.__name__
    t = time.monotonic()
    sys.stdout.flush()
    try:
        fn(*args)
        report(True, "%s [%.1f s]" % (name, time.monotonic() - t))
    except Skip as e:
        skip(name, str(e))
    except Fail as e:
        report(False, "%s [%.1f s]" % (name, time.monotonic() - t), str(e))
    except Exception as e:  # noqa: BLE001 - a crash is a failure, shown
        report(False, "%s [%.1f s]" % (name, time.monotonic() - t),
               "unexpected %s: %s" % (type(e).__name__, e))
        traceback.print_exc(file=sys.stdout)


def seconds():
    """Seconds since the suite imported this module."""
    return time.monotonic() - _start


def done(label):
    print("%s: took %.1f s" % (label, seconds()))
    print("%s: %d passed, %d failed, %d skipped" % (label, passed, failed, skipped))
    sys.stdout.flush()
    return 1 if failed else 0
