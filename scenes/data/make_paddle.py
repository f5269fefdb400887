#!/usr/bin/env python3
"""Writes paddle.obj, the blade of scenes/mpm_paddle_sand.json: a closed, outward-oriented box
from the pivot (the origin) out along +x, standing on y, thin along z. Run from this folder:
python3 make_paddle.py [length height thickness] (m; defaults 0.3 0.18 0.03)."""
import sys

length, height, thick = (float(a) for a in sys.argv[1:4]) if len(sys.argv) > 3 else (0.3, 0.18, 0.03)
lo = (0.05, 0.02, -thick / 2)
hi = (0.05 + length, 0.02 + height, thick / 2)
# vertex c = x + 2 y + 4 z (bits pick hi); faces counter-clockwise seen from outside
faces = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
         (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
with open("paddle.obj", "w") as o:
    o.write("# paddle blade, written by make_paddle.py\n")
    for c in range(8):
        p = [hi[a] if (c >> a) & 1 else lo[a] for a in range(3)]
        o.write("v %.6f %.6f %.6f\n" % tuple(p))
    for f in faces:
        o.write("f %d %d %d\n" % tuple(i + 1 for i in f))
