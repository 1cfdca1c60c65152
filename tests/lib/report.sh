# SPDX-License-Identifier: GPL-2.0
# The script suites' reporter, sourced by each tests/*/run written in bash:
#   ok WHAT / fail WHAT / skip WHY   print "ok: WHAT", "FAIL: WHAT", "skip: WHY" and count them;
#   report_add P F [S]              adds counts a sub-check printed (e.g. a check.py's summary);
#   report_done [LABEL]             prints the suite's duration ("LABEL: took N.N s", from when
#                                   this file was sourced), then "LABEL: N passed, N failed,
#                                   N skipped" (no label: the bare lines) and returns non-zero if
#                                   anything failed.
# REPORT_CLOCK=$SECONDS before the checks appends " [N s]" (seconds since then) to ok and FAIL.
# tests/run-check-suites reads the closing line.

report_pass=0 report_fail=0 report_skip=0
_report_start_us=${EPOCHREALTIME//[!0-9]/}

_report_clock() { [[ -n ${REPORT_CLOCK:-} ]] && printf ' [%d s]' $((SECONDS - REPORT_CLOCK)); }
ok() { report_pass=$((report_pass + 1)); echo "ok: $*$(_report_clock)"; }
fail() { report_fail=$((report_fail + 1)); echo "FAIL: $*$(_report_clock)"; }
skip() { report_skip=$((report_skip + 1)); echo "skip: $*"; }
report_add() {
	report_pass=$((report_pass + ${1:-0})) report_fail=$((report_fail + ${2:-0}))
	report_skip=$((report_skip + ${3:-0}))
}
report_done() {
	local us=$((${EPOCHREALTIME//[!0-9]/} - _report_start_us))

	printf '%stook %d.%d s\n' "${1:+$1: }" $((us / 1000000)) $((us / 100000 % 10))
	echo "${1:+$1: }$report_pass passed, $report_fail failed, $report_skip skipped"
	((report_fail == 0))
}
