"""open vs normal_depth at the outlet of a 1 km subcritical channel (issue 34, "open edges on
sloping beds: a warning", docs/NOTES.md 2026-12-05): 100 x 1 cells of 10 m, Manning n 0.05,
q = 1 m^2/s entering on the west (discharge 10 m^3/s), bed falling S to the east, started at the
normal depth, float64, first order. Prints the depth at the east edge cell after ET s (env, default
30000) against the normal depth. Usage: /usr/bin/python3 bench/swe_open_edge_channel.py <silt> <dir>"""
import glob, json, os, subprocess, sys

SILT, WORK = sys.argv[1], sys.argv[2]
ET = float(os.environ.get("ET", 30000))
L, DX, N, Q = 1000.0, 10.0, 0.05, 10.0


def run(S, btype):
    hn = (Q / DX * N / S**0.5) ** 0.6
    out = {"name": "out", "side": "east", "type": btype}
    if btype == "normal_depth":
        out["slope"] = S
    sc = {"solver": "swe", "name": "ch", "grid": {"nx": int(L / DX), "ny": 1, "dx": DX},
          "bed": {"value": S * L, "gradient": [-S, 0.0]}, "manning": N, "initial": {"depth": hn},
          "boundaries": [{"name": "in", "side": "west", "type": "discharge",
                          "discharge": [[0, Q], [1e6, Q]]}, out],
          "physics": {"precision": "float64"}, "run": {"end_time": ET, "output_interval": ET},
          "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none"}}
    p = os.path.join(WORK, f"ch_{S}_{btype}.json")
    json.dump(sc, open(p, "w"))
    o = os.path.join(WORK, f"out_{S}_{btype}")
    subprocess.run([SILT, "run", p, "--out", o, "--overwrite", "-q", "--backend", "cpu"], check=True)
    f = sorted(glob.glob(o + "/depth_*.asc"))[-1]
    return hn, [float(v) for line in open(f).read().splitlines()[6:] for v in line.split()]


os.makedirs(WORK, exist_ok=True)
for S in [1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2]:
    hn, vo = run(S, "open")
    _, vn = run(S, "normal_depth")
    fr = Q / DX / hn / (9.81 * hn) ** 0.5
    print(f"S={S:g} hn={hn:.3f} Fr={fr:.2f} open: edge {vo[-1]:.3f} (+{100 * (vo[-1] / hn - 1):.0f}%),"
          f" 20 cells in {vo[-21]:.3f}, west end {vo[0]:.3f} | normal_depth: edge {vn[-1]:.3f}")
