#!/usr/bin/env python3
"""mpm_ply_compare.py DIR_A DIR_B: compares the particle files (particles_*.ply, binary, as silt
writes them) of two MPM runs of one scene: the same files, particle counts and ids in the same
order, and integrals within float round-off (the tolerances of tests/verification/
mpm_multi_scene.hpp: centre of mass 2e-5 m, mean velocity 2e-4 m/s, kinetic energy 1e-3 relative).
Pure Python (no numpy), so that it runs wherever ctest does."""
import glob
import os
import struct
import sys


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode()
    props, count = [], 0
    for line in header.splitlines():
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w and w[0] == "property":
            props.append((w[1], w[2]))
    fmt = "<" + "".join("f" if t == "float" else "i" for t, _ in props)
    size = struct.calcsize(fmt)
    rows = [struct.unpack_from(fmt, data, end + i * size) for i in range(count)]
    names = [n for _, n in props]
    return {n: [r[k] for r in rows] for k, n in enumerate(names)}


def integrals(p):
    n = len(p["id"])
    com = [sum(p[a]) / n for a in "xyz"]
    vel = [sum(p[a]) / n for a in ("vx", "vy", "vz")]
    ke = sum(0.5 * (p["vx"][i] ** 2 + p["vy"][i] ** 2 + p["vz"][i] ** 2) for i in range(n)) / n
    return com, vel, ke


def main(a_dir, b_dir):
    files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(a_dir, "particles_*.ply")))
    other = sorted(os.path.basename(f) for f in glob.glob(os.path.join(b_dir, "particles_*.ply")))
    if not files or files != other:
        sys.exit(f"files differ: {files} vs {other}")
    worst = [0.0, 0.0, 0.0]
    for name in files:
        a, b = read_ply(os.path.join(a_dir, name)), read_ply(os.path.join(b_dir, name))
        if a["id"] != b["id"]:
            sys.exit(f"{name}: particle ids differ ({len(a['id'])} vs {len(b['id'])} particles)")
        if a["material"] != b["material"]:
            sys.exit(f"{name}: materials differ")
        (ca, va, ka), (cb, vb, kb) = integrals(a), integrals(b)
        d = [max(abs(x - y) for x, y in zip(ca, cb)), max(abs(x - y) for x, y in zip(va, vb)),
             abs(ka - kb) / max(kb, 1e-3)]
        worst = [max(w, x) for w, x in zip(worst, d)]
        if d[0] > 2e-5 or d[1] > 2e-4 or d[2] > 1e-3:
            sys.exit(f"{name}: |d com| {d[0]:.3g} m, |d mean v| {d[1]:.3g} m/s, d kinetic {d[2]:.3g}")
    print(f"{len(files)} frames, same ids; worst |d com| {worst[0]:.3g} m, |d mean v| "
          f"{worst[1]:.3g} m/s, d kinetic {worst[2]:.3g} (relative)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
