#!/usr/bin/env python3
"""Writes the crawling figure of scenes/mpm_snow_crawl.json (after paper 000 Fig. 29-30): the
meshes crawler_torso.obj, crawler_head.obj and crawler_limb.obj (closed, outward-oriented boxes,
each around its own pivot at the origin) and the scene itself, whose six mesh colliders (torso,
head, two arms, two legs) carry rigid keyframes of a crawl: the body moves along +x at `speed`
with its belly in the snow, arms and legs swing about the lateral axis (z) in opposite phase.
Run from this folder: python3 make_crawler.py [dx] (m; default 0.0135, the paper's cell).

The figure is coarse (boxes) but articulated: every part moves through the snow on its own path,
which is what the paper's crawling man tests (an animated boundary pushing through snow).
"""
import json
import math
import sys

DX = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0135
SPEED = 0.3        # m/s, forward speed of the body
STRIDE = 1.0       # s, one swing cycle of the limbs
SWING = 35.0       # degrees, amplitude of a limb's swing about z
END = 3.0          # s
BELLY = 0.17       # m, height of the torso's centre (the snow bed is 0.2 m deep)
X0, Z0 = 0.45, 0.55  # m, start of the torso's centre
DROP, LOWER = 0.25, 0.5  # m, s: the figure starts DROP above its crawling height, lowered in LOWER


def box(name, lo, hi):
    # vertex c = x + 2 y + 4 z (bits pick hi); faces counter-clockwise seen from outside
    faces = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
             (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
    with open(name, "w") as o:
        o.write("# %s, written by make_crawler.py\n" % name)
        for c in range(8):
            o.write("v %.6f %.6f %.6f\n" % tuple(hi[a] if (c >> a) & 1 else lo[a] for a in range(3)))
        for f in faces:
            o.write("f %d %d %d\n" % tuple(i + 1 for i in f))


# Torso 0.5 m long (x), 0.12 m thick (y), 0.26 m wide (z) around its centre; a head ahead of it;
# a limb 0.18 m long hanging from its pivot (shoulder or hip).
box("crawler_torso.obj", (-0.25, -0.06, -0.13), (0.25, 0.06, 0.13))
box("crawler_head.obj", (-0.07, -0.07, -0.07), (0.07, 0.07, 0.07))
box("crawler_limb.obj", (-0.035, -0.18, -0.035), (0.035, 0.0, 0.035))


def keys(offset, phase, swing):
    """Rigid keys of a part whose pivot sits at `offset` from the torso's centre, swinging by
    `swing` degrees about z with the given phase (turns), every 1/8 of a stride."""
    out = []
    n = int(round(END / STRIDE * 8))
    for k in range(n + 1):
        t = k * STRIDE / 8
        cx = X0 + SPEED * t
        lift = DROP * max(0.0, 1.0 - t / LOWER)  # starts above the snow, lowered into it
        angle = swing * math.sin(2 * math.pi * (t / STRIDE + phase))
        out.append({"time": round(t, 6),
                    "translation": [round(cx + offset[0], 6), round(BELLY + lift + offset[1], 6),
                                    round(Z0 + offset[2], 6)],
                    "axis": [0, 0, 1], "angle": round(angle, 4)})
    return out


parts = [
    ("torso", "crawler_torso.obj", (0, 0, 0), 0.0, 0.0),
    ("head", "crawler_head.obj", (0.33, 0.05, 0), 0.0, 0.0),
    ("arm_left", "crawler_limb.obj", (0.2, 0.03, 0.17), 0.0, SWING),
    ("arm_right", "crawler_limb.obj", (0.2, 0.03, -0.17), 0.5, SWING),
    ("leg_left", "crawler_limb.obj", (-0.22, 0.03, 0.1), 0.5, SWING),
    ("leg_right", "crawler_limb.obj", (-0.22, 0.03, -0.1), 0.0, SWING),
]
colliders = [{"name": name, "kind": "mesh", "file": "data/" + obj, "wall": "friction",
              "friction": 0.3, "keys": keys(off, phase, swing)}
             for name, obj, off, phase, swing in parts]

header = """// The paper's crawling figure (Fei et al. 2021, paper 000 Fig. 29-30): an animated figure crawls
// through a bed of snow at the paper's snow parameters (their cgs converted to SI: kappa 5.00e5
// dyne/cm^2 = 5e4 Pa, nu 0.3, M 0.8, beta 0.9, xi 5; cell 1.35 cm), 1.33M particles. The figure
// is made procedurally: scenes/data/make_crawler.py writes its meshes (boxes: torso, head, arms,
// legs) and this file, six mesh colliders with rigid keyframes (the figure starts above the snow,
// is lowered into it over 0.5 s and moves along +x at 0.3 m/s with its belly in the snow, the
// limbs swing +-35 degrees about the lateral axis in opposite phase). The snow is ploughed
// aside by the torso and dug by the limbs, leaving a furrow.
// Needs a build with OpenVDB (mesh colliders); for the GPU (a CPU preview: --set domain.dx=0.04).
//   silt run scenes/mpm_snow_crawl.json --backend cuda
"""
scene = {
    "solver": "mpm", "name": "snow_crawl",
    "description": "A figure crawling through snow",
    "domain": {"min": [0, 0, 0], "max": [2.6, 0.7, 1.1], "dx": DX, "walls": "separate",
               "friction": 0.3},
    "materials": [{"name": "snow", "kind": "snow", "density": 400, "poisson_ratio": 0.3,
                   "kappa": 5e4, "m": 0.8, "beta": 0.9, "xi": 5, "alpha0": -0.04}],
    "sources": [{"name": "bed", "material": "snow", "shape": "box", "min": [0.05, 0, 0.14],
                 "max": [2.55, 0.2, 0.96]}],
    "colliders": colliders,
    "run": {"fps": 60, "end_time": END},
    "outputs": {"formats": [], "png": False},
}
with open("../mpm_snow_crawl.json", "w") as o:
    o.write(header)
    o.write(json.dumps(scene, indent=1))
    o.write("\n")
