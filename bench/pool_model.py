#!/usr/bin/env python3
"""What members built ahead would give an ensemble's members phase, from one run's member lines
(src/silt/run/member_times.hpp): each member's job, set-up, stepping, other and teardown as
logged, replayed in log order on K workers (each holds its slot from its member's job to its
teardown, as the pool does without members built ahead) and on K + P workers of which at most K
step at once (a member built ahead waits for a slot; its job and set-up, its other and teardown
outside the slot). Assumes a member's stepping does not change with what runs beside it, and
counts all of "other" outside the slot, though the pool gives a turn back only after the frames'
host work (part of "other", ~0.02 s a flood member): an upper bound on the gain. Measured on an
H200 (bench/results/ensemble-members-ahead-2026-12-07j-h200.md) the stepping beside set-ups grew
~5%, and 2 ahead gained ~0.09 s of the members phase (medians 7.80 -> 7.71 s), not the 0.38 s
replayed. Prints numbers, asserts nothing.
    python3 bench/pool_model.py LOG [K]"""
import heapq
import re
import sys

LINE = re.compile(r"\(job ([0-9.]+) s before; set-up ([0-9.]+) s, (?:waiting [0-9.]+ s, )?"
                  r"stepping ([0-9.]+) s, other (-?[0-9.]+) s[^;]*; teardown (-?[0-9.]+) s after")


def without_ahead(members, k):
    free = [0.0] * k
    for job, setup, step, other, end in members:
        heapq.heappush(free, heapq.heappop(free) + job + setup + step + other + end)
    return max(free)


def with_ahead(members, k, p):
    workers, slots, last = [0.0] * (k + p), [0.0] * k, 0.0
    for job, setup, step, other, end in members:
        ready = heapq.heappop(workers) + job + setup
        done = max(ready, heapq.heappop(slots)) + step
        heapq.heappush(slots, done)
        heapq.heappush(workers, done + other + end)
        last = max(last, done + other + end)
    return last


def main():
    log = open(sys.argv[1]).read()
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    members = [tuple(float(x) for x in g) for g in LINE.findall(log)]
    phase = re.search(r"members ([0-9.]+) s, report", log)
    print(f"{len(members)} members, K = {k}; members phase logged: "
          f"{phase.group(1) if phase else '?'} s; stepping summed / K: "
          f"{sum(m[2] for m in members) / k:.2f} s")
    print(f"  replayed without members ahead: {without_ahead(members, k):.2f} s")
    for p in (1, 2, 4):
        print(f"  with {p} built ahead: {with_ahead(members, k, p):.2f} s")


if __name__ == "__main__":
    main()
