#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the KTAP that KUnit printed into a kernel log into one result line
# per test case: "PASS|FAIL|SKIP PREFIX/<suite>.<case>". Only suites named
# xiw_* are read. A suite whose plan ("1..N") does not match the number of
# cases seen gets a FAIL line of its own, and so does one that never
# reached its end line before the next suite began or the log ended, so a
# crash mid-suite cannot pass.
#
# Usage: ktap.sh DMESG PREFIX
set -euo pipefail
sed 's/^\[[^]]*\] //' "$1" | awk -v prefix="$2" '
/^    # Subtest: / {
	# A suite that never reached its own end line is not finished.
	if (suite ~ /^xiw_/) print "FAIL " prefix "/" suite ".unfinished"
	suite = $3; plan = -1; seen = 0; next
}
suite == "" { next }
/^    1\.\.[0-9]+$/ { plan = substr($1, 4) + 0; next }
/^    (not )?ok [0-9]+ / {
	if (suite !~ /^xiw_/) next
	notok = ($1 == "not"); name = notok ? $4 : $3
	state = notok ? "FAIL" : (/# SKIP/ ? "SKIP" : "PASS")
	print state " " prefix "/" suite "." name
	seen++
	next
}
/^(not )?ok [0-9]+ / {
	if (suite ~ /^xiw_/ && seen != plan)
		print "FAIL " prefix "/" suite ".plan(" seen " of " plan ")"
	suite = ""
}
END { if (suite ~ /^xiw_/) print "FAIL " prefix "/" suite ".unfinished" }
'
