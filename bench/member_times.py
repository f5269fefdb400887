#!/usr/bin/env python3
"""Where ensemble members' time went, from the member lines of a `silt run --ensemble` log
(src/silt/run/member_times.hpp): each part's median and its sum over the members, and the sum over
K (members in flight). A part whose sum stays near the ensemble's wall as K grows is the one the
members queue for. Prints numbers, asserts nothing.
    python3 bench/member_times.py LOG K"""
import re
import sys


def main():
    log, k = open(sys.argv[1]).read(), int(sys.argv[2])
    for part in ("job", "set-up", "waiting", "stepping", "other", "teardown"):
        v = sorted(float(x) for x in re.findall(re.escape(part) + r" (-?[0-9.]+) s", log))
        if v:
            print(f"  member {part}: median {v[len(v) // 2]:.3f} s, summed {sum(v):.2f} s, "
                  f"summed / K {sum(v) / k:.2f} s")
    rec = [int(x) for x in re.findall(r"with (\d+) graph recordings", log)]
    if rec:
        print(f"  graph recordings: {sum(rec)} over {len(rec)} members")


if __name__ == "__main__":
    main()
