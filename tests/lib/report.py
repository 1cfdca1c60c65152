# SPDX-License-Identifier: GPL-2.0
"""The Python suites' reporter (tests/badinput/run, tests/robust/run); tests/lib/report.sh is
the same for the bash suites. report(ok, name, why) and skip(name, why) print and count one
check; done(label) prints "LABEL: N passed, N failed, N skipped", which tests/run-check-suites
reads, and returns the suite's exit status."""

passed = failed = skipped = 0


def report(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok    " + name)
    else:
        failed += 1
        print("FAIL  %s: %s" % (name, why))


def skip(name, why):
    global skipped
    skipped += 1
    print("skip  %s: skipped: %s" % (name, why))


def done(label):
    print("%s: %d passed, %d failed, %d skipped" % (label, passed, failed, skipped))
    return 1 if failed else 0
