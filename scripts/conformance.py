#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/conformance.rst against the tests.

Every requirement row must name at least one test; every named test must
exist; with --results (the results file of scripts/check.sh) every named
test must also have passed in that run: at least once, and failed nowhere
(a case may be skipped on one kernel and pass on the other). Prints one
line per problem and exits 1 if there is any.

Usage: scripts/conformance.py [--results FILE] [DOC]
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = re.compile(r"``((?:host|kunit|fuzz|vm|wire):[^`]+)``")


def rows(doc):
    """Yields (id, [tests]) for every requirement row of the list-table."""
    row_id, tests = None, []
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"^   \* - (\S*)\s*$", line)
        if m:
            if row_id:
                yield row_id, tests
            # The header row ("ID") and section rows (empty) are no requirements.
            row_id, tests = (m.group(1) if m.group(1) not in ("", "ID") else None), []
            continue
        tests += TOKEN.findall(line)
    if row_id:
        yield row_id, tests


def read(pattern):
    text = ""
    for path in sorted(glob.glob(os.path.join(TOP, pattern))):
        text += open(path, encoding="utf-8").read()
    return text


def exists(test, unit_src, kunit_src):
    kind, name = test.split(":", 1)
    if kind == "host":
        suite, _, case = name.partition(".")
        return re.search(r"TEST(_P|_F)?\(%s, %s\)" % (re.escape(suite), re.escape(case)), unit_src)
    if kind == "kunit":
        return "KUNIT_CASE(%s)" % name in kunit_src
    if kind == "wire":
        return "verdict %s " % name in open(os.path.join(TOP, "scripts", "wire", "check.sh"), encoding="utf-8").read()
    if kind == "vm":
        test, _, case = name.partition("/")
        script = os.path.join(TOP, "scripts", "vm", "tests", test + ".sh")
        return os.path.exists(script) and case.split("-")[0] in open(script, encoding="utf-8").read()
    return os.path.exists(os.path.join(TOP, "userspace-tests", "fuzz", "fuzz_%s.cpp" % name))


def result_pattern(test):
    kind, name = test.split(":", 1)
    if kind == "host":
        suite, _, case = name.partition(".")
        return re.compile(r"^(PASS|FAIL|SKIP) host/(\S*/)?%s\.%s(/\S*)?$" % (re.escape(suite), re.escape(case)))
    if kind == "kunit":
        return re.compile(r"^(PASS|FAIL|SKIP) vm-debug/kunit/\S+\.%s$" % re.escape(name))
    if kind == "vm":
        return re.compile(r"^(PASS|FAIL|SKIP) vm-(stock|debug)/vm\d+/%s$" % re.escape(name))
    if kind == "wire":
        return re.compile(r"^(PASS|FAIL|SKIP) vm-stock/wire/%s$" % re.escape(name))
    return re.compile(r"^(PASS|FAIL|SKIP) fuzz/%s$" % re.escape(name))


def main(argv):
    results = None
    if len(argv) > 2 and argv[1] == "--results":
        results = open(argv[2], encoding="utf-8").read().splitlines()
        argv = argv[:1] + argv[3:]
    doc = argv[1] if len(argv) > 1 else os.path.join(TOP, "Documentation", "conformance.rst")
    unit_src = read("userspace-tests/unit/*.cpp")
    kunit_src = read("kunit/*.c")
    problems, count = [], 0
    for row_id, tests in rows(doc):
        count += 1
        if not tests:
            problems.append("%s: no test" % row_id)
        for t in tests:
            if not exists(t, unit_src, kunit_src):
                problems.append("%s: %s does not exist" % (row_id, t))
            elif results is not None:
                pat = result_pattern(t)
                states = [m.group(1) for m in map(pat.match, results) if m]
                # Passed at least once, failed nowhere: a case that make
                # check's debug boot skips (DEPTH=quick) and the stock
                # boot ran counts; a SKIP alone does not.
                if "PASS" not in states or "FAIL" in states:
                    problems.append("%s: %s did not pass (%s)" % (row_id, t, ",".join(states) or "not run"))
    for p in problems:
        print(p)
    print("conformance: %d requirements, %d problems" % (count, len(problems)))
    return 1 if problems or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
