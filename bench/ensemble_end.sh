#!/usr/bin/env bash
# What the flood ensemble's process spends after its last exit handler (issue 37: 0.31-0.41 s
# against 0.13-0.17 s for a 64M-cell run of the same work on an H100, not the block caches:
# bench/results/ensemble-teardown-2026-12-07c-h100.md): the same scene's ensemble with 16
# members one at a time (K = 1) and 8 at once, and 64 members 8 at once, and the 64M run, each
# stamped by bench/exit_times.c. The end growing from 16 to 64 members points at what members
# leave behind; from K = 1 to 8, at the worker threads. The member's scene alone (solo-1m, a
# 1M-cell run) and an ensemble of one member (m1-k1) tell the ensemble's own end from a small
# grid's. CASES picks (default: m16-k1 m16-k8 m64-k8 big). With STRACE=path-to-strace, each case
# runs once more under strace (close, munmap, exit_group, ioctl of every thread, -T): the
# process's last 0.5 s of system calls, the longest of them, and the gap from exit_group to the
# process's end (what the kernel's teardown of its files and memory takes). Prints numbers,
# asserts nothing.
#   bash bench/ensemble_end.sh SILT [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
silt=${1:?usage: bash bench/ensemble_end.sh SILT [ROUNDS]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -shared -fPIC bench/exit_times.c -o "$work/libexittimes.so" -ldl
sed 's/"count": 64/"count": 16/' scenes/dam_break_1m_ensemble.json > "$work/ens16.json"
sed 's/"count": 64/"count": 1/' scenes/dam_break_1m_ensemble.json > "$work/ens1.json"
grid=(--backend cuda --set grid.nx=1000 --set grid.ny=1000 --set grid.dx=1)
big=(--backend cuda --set grid.nx=8000 --set grid.ny=8000 --set grid.dx=0.125
  --set run.end_time=7.5 --set run.output_interval=7.5 --set manning=0.0315)
one() {  # one NAME ARGS...: a whole process, its wall and its end after the last exit handler
  local name=$1 t0 t1 last
  shift
  t0=$(date +%s.%N)
  LD_PRELOAD="$work/libexittimes.so" "$silt" run scenes/dam_break_1m.json "$@" \
    --out "$work/$name" > "$work/$name.log" 2>&1
  t1=$(date +%s.%N)
  last=$(awk '/^exit_times .* last exit handler/ {print $2}' "$work/$name.log" | tail -n 1)
  awk -v n="$name" -v a="$t0" -v b="$t1" -v l="${last:-0}" \
    'BEGIN { printf "%-12s wall %.3f s, after the last exit handler %.3f s\n", n, b - a, (l > 0 ? b - l : -1) }'
  grep -E "^ensemble phases|^device blocks" "$work/$name.log" | sed 's/^/    /'
  [ -n "${STRACE:-}" ] || return 0
  "$STRACE" -f -tt -T -e trace=close,munmap,exit_group,ioctl -o "$work/$name.strace" \
    "$silt" run scenes/dam_break_1m.json "$@" --out "$work/$name-st" > /dev/null 2>&1
  python3 - "$work/$name.strace" << 'PY'
import re, sys
lines = [l.rstrip() for l in open(sys.argv[1])]
def t(l):
    m = re.match(r"\d+ +(\d+):(\d+):(\d+\.\d+)", l)
    return None if not m else int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
stamped = [(t(l), l) for l in lines if t(l) is not None]
end = stamped[-1][0]
tail = [(x, l) for x, l in stamped if x >= end - 0.5]
ex = [x for x, l in stamped if "exit_group(" in l]
print(f"    strace: {len(lines)} lines; exit_group {end - ex[-1]:.3f} s before the end" if ex else "    strace: no exit_group")
dur = []
for x, l in tail:
    m = re.search(r"<(\d+\.\d+)>$", l)
    if m: dur.append((float(m[1]), l))
dur.sort(reverse=True)
print(f"    last 0.5 s: {len(tail)} calls, {sum(d for d, _ in dur):.3f} s in them; longest:")
for d, l in dur[:6]: print("      " + l[:150])
for x, l in stamped[-4:]: print(f"      [{x - end:+.3f}] " + l[:150])
# The driver's objects the process made: its ioctls by request (type 0x46: the NVIDIA device
# files', e.g. 0x2b an object allocated, 0x29 one freed, 0x27 memory allocated; type 0: the UVM
# file's), over the whole run.
codes = {}
for _, l in stamped:
    m = re.search(r"ioctl\(\d+, _IOC\([^,]+, (0x[0-9a-f]+|0), (0x[0-9a-f]+)", l)
    if m: codes[m[1] + "/" + m[2]] = codes.get(m[1] + "/" + m[2], 0) + 1
print("    ioctls: " + ", ".join(f"{k} {n}" for k, n in sorted(codes.items(), key=lambda kv: -kv[1])[:14]))
PY
}
for r in $(seq 1 "${2:-1}"); do
  for c in ${CASES:-m16-k1 m16-k8 m64-k8 big}; do
    case $c in
    solo-1m) one "$c-$r" "${grid[@]}" --set manning=0.0315 ;;
    m1-k1) one "$c-$r" "${grid[@]}" --ensemble "$work/ens1.json" --members-at-once 1 ;;
    m16-k1) one "$c-$r" "${grid[@]}" --ensemble "$work/ens16.json" --members-at-once 1 ;;
    m16-k8) one "$c-$r" "${grid[@]}" --ensemble "$work/ens16.json" --members-at-once 8 ;;
    m64-k8) one "$c-$r" "${grid[@]}" --ensemble scenes/dam_break_1m_ensemble.json --members-at-once 8 ;;
    big) one "$c-$r" "${big[@]}" ;;
    esac
  done
done
