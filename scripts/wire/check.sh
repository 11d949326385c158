#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check a capture of the VM network (scripts/vm/run.sh --pcap) with parsers
# nobody here wrote and with our own RFC 6581 checker. Prints one
# "PASS|FAIL PREFIX/<case>" line per case:
#
#   tshark-errors  no frame tshark calls malformed, unreassembled or an
#                  expert error, with its MPA, DDP and RDMAP dissectors, on
#                  connections without Markers, without short heads and
#                  on a 4-tuple of their own (below)
#   tshark-crc     no FPDU whose CRC32c tshark finds bad, and some checked,
#                  on connections without Markers (on a connection with a
#                  retransmission, or with an FPDU that begins fewer than
#                  8 octets before the end of its TCP segment - a "short
#                  head", which tshark cannot frame - tshark misframes
#                  FPDUs: its bad CRCs there are excused, as mpa-6581
#                  checked those CRCs)
#   tshark-fpdus   tshark decodes every FPDU our checker finds, direction by
#                  direction, on connections without Markers, other than
#                  those whose bad CRCs tshark-crc excused (tshark frames
#                  Markers only where TCP segments hold whole FPDUs, and
#                  misses the rest silently; mpa-6581 checks them)
#   mpa-6581       scripts/wire/mpa_check.py: startup frames, RFC 6581
#                  enhanced data, RTRs, MPA fencing, FPDU and Marker layout,
#                  PAD zero from xiw (VM 0), CRC32c where Markers are on
#   fpdu-alignment of the TCP segments xiw sends in full operation without
#                  Markers, at least 99 % begin with an FPDU (RFC 5044
#                  section 6, FPDU Alignment; segments that continue a
#                  GSO-sized FPDU are not counted); siw's share is logged
#   negative-control the tshark checks catch one flipped octet in a copy
# and with a third argument "rpcrdma" (a capture with rpcrdma.sh's calls):
#   rpcrdma        scripts/wire/rpcrdma_check.py: every RPC-over-RDMA
#                  transport header of both versions, sizes, versions and
#                  fallback, credits, chunks, and every RDMA WRITE and READ
#                  inside a chunk offered; some connection in Version Two,
#                  some fallen back to Version One, and a later one from
#                  the same requester begun in One (remembered)
#   rpcrdma-tshark tshark's rpcrdma dissector decodes the Version One
#                  messages of the connections that fell back, none
#                  malformed (it knows no Version Two: it claims some of
#                  those messages as Version One and calls them malformed)
#
# Usage: check.sh CAPTURE PREFIX [rpcrdma]   (details go to CAPTURE.*.txt)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pcap=$1 prefix=$2 extra=${3:-}
"$here/../deps.sh" wire >&2 || exit 1

verdict() {	# case ok
	if [ "$2" = 1 ]; then echo "PASS $prefix/$1"; else echo "FAIL $prefix/$1"; fi
}
# The MPA heuristic must win over dissectors registered on the ephemeral
# ports the connections happen to use. The guesses tshark makes about what
# SEND payloads carry (RPC-over-RDMA, SMB Direct) are off: test payloads
# are neither, and the guesses call them malformed.
ts() {
	tshark -r "$pcap" -o tcp.try_heuristic_first:TRUE \
		--disable-heuristic rpcrdma_iwarp --disable-heuristic smb_direct_iwarp \
		"$@" 2>/dev/null
}

# VM 0 (10.77.0.1) runs xiw in every test of the captured boot, VM 1 runs
# upstream siw for interop: a PAD that is not zero is an error from VM 0
# and reported from VM 1 (siw sends some: Documentation/interop.rst).
python3 "$here/mpa_check.py" --fpdus --pad-strict=10.77.0.1 "$pcap" > "$pcap.mpa.txt"
verdict mpa-6581 "$([ $? = 0 ] && echo 1)"
# FPDU Alignment per sender (RFC 5044 section 6), for the log.
grep '^alignment ' "$pcap.mpa.txt" >&2
# xiw's directions: all of VM 0's (10.77.0.1), and VM 1's on the ports
# where VM 1 runs xiw too (cm.sh 7471, bulk.sh 7481 and 7482).
awk -v xiw_ports=" 7471 7481 7482 " '$1 == "aligned" {
	split($2, s, ":"); split($3, d, ":"); split($4, r, "/")
	if (s[1] == "10.77.0.1" || index(xiw_ports, " " s[2] " ") || index(xiw_ports, " " d[2] " ")) {
		a += r[1]; n += r[2]
		if (r[1] < r[2]) print "unaligned: " $0
	}
     }
     END { printf "xiw: %d of %d segments begin with an FPDU\n", a, n
	   exit !(n > 0 && a >= 0.99 * n) }' "$pcap.mpa.txt" > "$pcap.alignment.txt"
verdict fpdu-alignment "$([ $? = 0 ] && echo 1)"
tail -n 1 "$pcap.alignment.txt" >&2

# tshark judges the connections without Markers; it misframes the others
# (mpa-6581 checks their Markers and CRCs).
unmarked=$(awk '$1 == "markers" { split($2, a, ":"); split($3, b, ":")
	printf "%s!(ip.addr == %s && ip.addr == %s && tcp.port == %s && tcp.port == %s)",
	       n++ ? " && " : "", a[1], b[1], a[2], b[2] }' "$pcap.mpa.txt")
# Nor those with a short head: tshark reads the segment after one as an
# FPDU of its own (mpa_check.py short_head()). Nor a 4-tuple that carried
# two connections (rdma_cm picks a random local port; one in a few dozen
# runs repeats one): tshark keeps the first one's MPA state and reads the
# next one's MPA Request as an FPDU ("[TCP Port numbers reused]").
unframed=$(awk '$1 == "markers" || $1 == "short-head" || $1 == "reused" { split($2, a, ":"); split($3, b, ":")
	printf "%s!(ip.addr == %s && ip.addr == %s && tcp.port == %s && tcp.port == %s)",
	       n++ ? " && " : "", a[1], b[1], a[2], b[2] }' "$pcap.mpa.txt")
ts -Y "(_ws.malformed || _ws.expert.severity == error || _ws.unreassembled)${unframed:+ && $unframed}" \
	> "$pcap.errors.txt"
verdict tshark-errors "$([ ! -s "$pcap.errors.txt" ] && echo 1)"

# Per direction. Where a TCP segment repeated octets (a retransmission) or
# an FPDU has a short head, tshark's reassembly can lose an FPDU's framing
# and report CRCs of misframed octets as bad; mpa-6581 has checked those connections' framing
# and CRCs itself, so there (and only there) tshark's bad CRCs are excused
# and listed in CAPTURE.crc-excused.txt.
ts -Y "iwarp_mpa.crc_check${unmarked:+ && $unmarked}" -V |
	awk '/^Internet Protocol Version [46], Src:/ { src = $6; sub(",", "", src); dst = $8 }
	     /^Transmission Control Protocol, Src Port:/ { sp = $6; sub(",", "", sp); dp = $9; sub(",", "", dp) }
	     /Good CRC32/ { print "Good", src ":" sp, dst ":" dp }
	     /Bad CRC32/ { print "Bad", src ":" sp, dst ":" dp }' |
	sort | uniq -c > "$pcap.crc.txt"
awk 'FNR == NR { if ($1 == "retransmitted" || $1 == "short-head" || $1 == "reused") { r[$2 " " $3]; r[$3 " " $2] } next }
     $2 == "Good" { good += $1 }
     $2 == "Bad" && ($3 " " $4 in r) { print > excused; next }
     $2 == "Bad" { bad += $1 }
     END { exit !(good > 0 && bad == 0) }' excused="$pcap.crc-excused.txt" \
	"$pcap.mpa.txt" "$pcap.crc.txt"
verdict tshark-crc "$([ $? = 0 ] && echo 1)"

# FPDUs per direction, tshark's count against ours.
ts -Y iwarp_mpa.fpdu -T fields -e ip.src -e tcp.srcport -e ip.dst -e tcp.dstport \
	-e iwarp_mpa.ulpdulength |
	awk '{ n[$1 ":" $2 " " $3 ":" $4] += split($5, a, ",") }
	     END { for (k in n) print k, n[k] }' > "$pcap.tshark-fpdus.txt"
# A connection whose bad CRCs were excused above, or with a short head,
# is misframed by tshark: its count is excused too.
touch "$pcap.crc-excused.txt"
awk 'FILENAME == ARGV[1] { t[$1 " " $2] = $3; next }
     FILENAME == ARGV[2] { marked[$3 " " $4]; marked[$4 " " $3]; next }
     $1 == "fpdus" && !($2 " " $3 in marked) {
	if (t[$2 " " $3] + 0 != $4) { print "direction", $2, $3, "ours", $4, "tshark", t[$2 " " $3] + 0; bad++ }
     }
     $1 == "markers" || $1 == "short-head" || $1 == "reused" { marked[$2 " " $3]; marked[$3 " " $2] }
     END { exit bad > 0 }' "$pcap.tshark-fpdus.txt" "$pcap.crc-excused.txt" "$pcap.mpa.txt" \
	> "$pcap.fpdus-diff.txt"
verdict tshark-fpdus "$([ $? = 0 ] && echo 1)"

# RPC-over-RDMA: our checker, then tshark's dissector of Version One (its
# heuristic on, on the connections in Version One only: it claims SEND
# payloads of other tests and of Version Two too) must find no malformed
# frame and decode some.
if [ "$extra" = rpcrdma ]; then
	python3 "$here/rpcrdma_check.py" --want=v2,fallback,remembered "$pcap" > "$pcap.rpcrdma.txt"
	verdict rpcrdma "$([ $? = 0 ] && echo 1)"
	tail -n 1 "$pcap.rpcrdma.txt" >&2
	conns=$(awk '$2 == "rpcrdma" && $4 ~ /^1,?$/ { split($1, e, "->"); split(e[1], a, ":"); split(e[2], b, ":")
		sub(/:$/, "", b[2]); sub(/#.*/, "", b[2])
		printf "%s(ip.addr == %s && ip.addr == %s && tcp.port == %s && tcp.port == %s)",
		       n++ ? " || " : "", a[1], b[1], a[2], b[2] }' "$pcap.rpcrdma.txt")
	rts() {
		tshark -r "$pcap" -o tcp.try_heuristic_first:TRUE \
			--disable-heuristic smb_direct_iwarp -Y "($conns) && ($1)" 2>/dev/null
	}
	bad=$(rts "_ws.malformed || _ws.expert.severity == error" | tee "$pcap.rpcrdma-tshark.txt" | wc -l)
	decoded=$(rts "rpcordma" | wc -l)
	echo "tshark: $decoded RPC-over-RDMA frames, $bad malformed or in error" >&2
	verdict rpcrdma-tshark "$([ -n "$conns" ] && [ "$bad" = 0 ] && [ "$decoded" -gt 0 ] && echo 1)"
fi

# Negative control: the same checks must see one flipped octet. The copy is
# the capture's first 4000 frames with the last payload octet but ten of
# the first frame whose FPDU CRC tshark found good turned over.
first=$(ts -c 4000 -Y "iwarp_mpa.crc_check${unmarked:+ && $unmarked}" -V | awk '/^Frame [0-9]+:/ { f = $2 }
	/Good CRC32/ { print f; exit }' | tr -d :)
bad_copy=$pcap.flipped
python3 - "$pcap" "$bad_copy" "${first:-0}" <<'EOP'
import struct, sys
src, dst, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(src, "rb").read())
end = "<" if struct.unpack_from("<I", data, 0)[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
off, n = 24, 0
while off + 16 <= len(data) and n < 4000:
    caplen = struct.unpack_from(end + "I", data, off + 8)[0]
    n += 1
    if n == target:
        data[off + 16 + caplen - 10] ^= 0xFF
    off += 16 + caplen
open(dst, "wb").write(data[:off])
EOP
pcap=$bad_copy
caught=$( { ts -Y "(_ws.malformed || _ws.expert.severity == error || _ws.unreassembled)${unmarked:+ && $unmarked}"
	    ts -Y "iwarp_mpa.crc_check${unmarked:+ && $unmarked}" -V | grep 'Bad CRC32'; } | wc -l)
rm -f "$bad_copy"
verdict negative-control "$([ "${first:-0}" -gt 0 ] && [ "$caught" -gt 0 ] && echo 1)"
