"""Boundary lines and inflow lines of `silt run` (issue 34, item 8). Checks:
  - a masked, non-rectangular domain (nodata around it and an island of nodata inside) with a
    discharge line and an open line along its outer edge, both beside nodata cells, gives the same
    hydrograph and depths, bit for bit, as the same domain cut to its bounding rectangle with the
    equivalent side + range boundaries;
  - a discharge line along a 45-degree staircase of nodata cells takes both edges of every step
    (the edge count `silt validate` prints), and the volume through it is the hydrograph's;
  - an inflow line inside the domain passes its hydrograph's volume (hydrograph.csv), and the mass
    balance closes;
  - an inflow polygon (a source area) passes its hydrograph's volume, and gives the same depths
    and mass balance, bit for bit, as its cells as point sources of a quarter of its discharge
    each, first and second order (muscl and muscl_hancock);
  - three partitions write the same hydrograph.csv and depths as one;
  - the masked against the rectangular domain, its volumes and its three partitions also with
    physics.scheme = "muscl_hancock";
  - bad geometry is refused by `silt validate` naming the key, the boundary's index and name and
    what is wrong: a line off the edge (with its distance), across itself, over nodata only, along
    no active edge, overlapping another boundary; an inflow line over no active cell; an inflow
    polygon of 2 points, across itself, off the grid, over nodata only;
  - a level boundary whose level never reaches the ground of its cells is valid (a free outfall)
    but `silt validate` warns, naming it, its highest level and its lowest ground.
Usage: swe_boundary_lines_test.py <silt> <work dir> [cpu|cuda]: with cuda (label gpu) one GPU runs
the scenes (the tile kernel's step) and the split comparison is left out."""
import csv
import json
import os
import shutil
import subprocess
import sys

DX = 5.0
BACKEND = sys.argv[3] if len(sys.argv) > 3 else "cpu"
HYDRO = [[0, 0], [100, 2.0], [300, 2.0]]  # m^3/s
LINE_Q = [[0, 0], [100, 1.0], [300, 1.0]]  # m^3/s of the inflow line
POLY_Q = [[0, 0], [100, 0.8], [300, 0.8]]  # m^3/s of the inflow polygon, over 4 cells
POND = [[43, 6], [56, 6], [56, 16], [43, 16]]  # holds the centres x 47.5, 52.5 and y 7.5, 12.5
END = 300.0
VOLUME_TOL = 1e-6  # relative: float32 sums of the per-step volumes


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def write_asc(path, active, x0, y0):
    """A flat bed of 1 m on the cells where active[j][i] (row j = 0 the southern), nodata
    elsewhere."""
    ny, nx = len(active), len(active[0])
    with open(path, "w") as f:
        f.write(f"ncols {nx}\nnrows {ny}\nxllcorner {x0}\nyllcorner {y0}\ncellsize {DX}\n"
                "NODATA_value -9999\n")
        for j in reversed(range(ny)):
            f.write(" ".join("1.0" if active[j][i] else "-9999" for i in range(nx)) + "\n")


def scene(name, bed, boundaries, sources=None):
    return {"solver": "swe", "name": name, "bed": {"raster": bed, "nodata": "wall"},
            "manning": 0.03, "initial": {"depth": 0.1}, "boundaries": boundaries,
            "sources": sources or [],
            "run": {"end_time": END, "output_interval": 50},
            "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none"}}


def save(work, sc):
    path = os.path.join(work, sc["name"] + ".json")
    with open(path, "w") as f:
        json.dump(sc, f)
    return path


def run(silt, path, out, *extra):
    p = subprocess.run([silt, "run", path, "--backend", BACKEND, "--out", out, "-q",
                        "--overwrite"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"silt run {path} failed ({p.returncode}): {p.stderr}")


def table(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], [[float(x) for x in row] for row in r[1:]]


def grid(path):
    with open(path) as f:
        lines = f.read().split("\n")
    return [[float(x) for x in ln.split()] for ln in lines[6:] if ln.strip()]


def hydro_volume(t, series):
    """Integral of a piecewise-linear series from 0 to t (held after its last sample)."""
    v = 0.0
    for (t0, q0), (t1, q1) in zip(series, series[1:]):
        if t <= t0:
            break
        b = min(t, t1)
        qb = q0 + (q1 - q0) * (b - t0) / (t1 - t0)
        v += 0.5 * (q0 + qb) * (b - t0)
    if t > series[-1][0]:
        v += series[-1][1] * (t - series[-1][0])
    return v


def check_volumes(out, name, series):
    head, rows = table(os.path.join(out, "hydrograph.csv"))
    col = head.index(name + "_volume_m3")
    for r in rows:
        want = hydro_volume(r[1], series)
        if abs(r[col] - want) > VOLUME_TOL * max(want, 1.0) + 1e-9:
            fail(f"{out}: '{name}' passed {r[col]} m^3 by t = {r[1]} s, its hydrograph {want}")
    head, rows = table(os.path.join(out, "mass_balance.csv"))
    res, stored = head.index("residual_m3"), head.index("stored_m3")
    for r in rows:
        if abs(r[res]) > 1e-6 * r[stored]:
            fail(f"{out}: mass balance residual {r[res]} m^3 at t = {r[1]} s")


def close(a, b, tol):
    return all(abs(x - y) <= tol * max(abs(x), abs(y), 1e-3) for x, y in zip(a, b))


def same(out_a, out_b, crop=None):
    """Same hydrograph.csv and depth rasters (crop: rows, cols of b inside a): bit for bit on the
    CPU; on a GPU within 1e-5 (its atomics add the volumes in another order)."""
    tol = 0.0 if BACKEND == "cpu" else 1e-5
    ha, hb = (table(os.path.join(o, "hydrograph.csv")) for o in (out_a, out_b))
    if ha[0] != hb[0] or not all(close(x, y, tol) for x, y in zip(ha[1], hb[1])):
        fail(f"hydrograph.csv of {out_a} and {out_b} differ")
    for k in range(int(END / 50) + 1):
        da = grid(os.path.join(out_a, f"depth_{k:04d}.asc"))
        db = grid(os.path.join(out_b, f"depth_{k:04d}.asc"))
        if crop:
            (r0, r1), (c0, c1) = crop
            da = [row[c0:c1] for row in da[r0:r1]]
        if len(da) != len(db) or not all(close(x, y, tol) for x, y in zip(da, db)):
            fail(f"depth_{k:04d}.asc of {out_a} and {out_b} differ")


def check_polygon_as_cells(silt, work, lines, source):
    """The polygon against its four cells as point sources of POLY_Q / 4 each, first and second
    order: the same depths and mass balance, bit for bit on the CPU."""
    quarter = [[t, q / 4] for t, q in POLY_Q]
    cells = [{"name": f"c{k}", "x": x, "y": y, "discharge": quarter}
             for k, (x, y) in enumerate([(47.5, 7.5), (52.5, 7.5), (47.5, 12.5), (52.5, 12.5)])]
    tol = 0.0 if BACKEND == "cpu" else 1e-5
    for scheme in ["first_order", "muscl", "muscl_hancock"]:
        outs = []
        for name, src in [("poly", source), ("cells", source[:1] + cells)]:
            out = os.path.join(work, f"{name}_{scheme}")
            run(silt, save(work, scene(f"{name}_{scheme}", "masked.asc", lines, src)), out, "--set",
                f"physics.scheme={scheme}")
            outs.append(out)
        for k in range(int(END / 50) + 1):
            da, db = (grid(os.path.join(o, f"depth_{k:04d}.asc")) for o in outs)
            if not all(close(x, y, tol) for x, y in zip(da, db)):
                fail(f"{scheme}: depth_{k:04d}.asc of the polygon and of its cells differ")
        ma, mb = (table(os.path.join(o, "mass_balance.csv")) for o in outs)
        col = ma[0].index("source_net_m3")
        if not all(close([x[col]], [y[col]], max(tol, 1e-12)) for x, y in zip(ma[1], mb[1])):
            fail(f"{scheme}: source_net_m3 of the polygon and of its cells differ")
        check_volumes(outs[0], "pond", POLY_Q)


def validate(silt, path):
    p = subprocess.run([silt, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return p.returncode, p.stdout + p.stderr


def refused(silt, work, sc, expect):
    code, text = validate(silt, save(work, sc))
    if code == 0 or any(e not in text for e in expect):
        fail(f"{sc['name']}: expected an error with {expect}, got ({code}) {text}")
    print(f"{sc['name']}: {text.strip()}")


def main():
    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The domain: 12 x 8 cells from (10, 5) with an island of 2 x 2 nodata cells; masked, it lies
    # in a 15 x 11 grid from (0, 0) with nodata on the west (2 columns), south, north and east.
    island = lambda i, j: 4 <= i <= 5 and 3 <= j <= 4
    rect = [[not island(i, j) for i in range(12)] for j in range(8)]
    masked = [[1 <= j <= 8 and 2 <= i <= 13 and not island(i - 2, j - 1) for i in range(15)]
              for j in range(11)]
    write_asc(os.path.join(work, "rect.asc"), rect, 10, 5)
    write_asc(os.path.join(work, "masked.asc"), masked, 0, 0)
    source = [{"name": "spill", "line": [[32, 8], [48, 20], [66, 38]], "discharge": LINE_Q},
              {"name": "pond", "polygon": POND, "discharge": POLY_Q}]
    lines = [{"name": "in", "line": [[10, 10], [10, 35]], "type": "discharge", "discharge": HYDRO},
             {"name": "out", "line": [[70, 45], [70, 5]], "type": "open"},
             {"name": "top", "line": [[40, 45], [60, 45]], "type": "level", "level": 1.05}]
    sides = [{"name": "in", "side": "west", "range": [10, 35], "type": "discharge",
              "discharge": HYDRO},
             {"name": "out", "side": "east", "type": "open"},
             {"name": "top", "side": "north", "range": [40, 60], "type": "level", "level": 1.05}]
    m = save(work, scene("masked", "masked.asc", lines, source))
    r = save(work, scene("rect", "rect.asc", sides, source))
    code, text = validate(silt, m)
    for want in ["in: discharge line of 2 points, 5 edges", "out: open line of 2 points, 8 edges",
                 "top: level line of 2 points, 4 edges", "spill: inflow line of 3 points over",
                 "pond: inflow polygon of 4 points over 4 cells"]:
        if code != 0 or want not in text:
            fail(f"silt validate masked.json: expected '{want}', got ({code}) {text}")
    for scheme in ["first_order", "muscl_hancock"]:
        tag = "" if scheme == "first_order" else "_" + scheme
        masked_out, rect_out = (os.path.join(work, n + tag) for n in ("masked", "rect"))
        run(silt, m, masked_out, "--set", f"physics.scheme={scheme}")
        run(silt, r, rect_out, "--set", f"physics.scheme={scheme}")
        # The masked grid's rows 1..8 (north first: 2..9) and columns 2..13 are the rectangle.
        same(masked_out, rect_out, ((2, 10), (2, 14)))
        check_volumes(masked_out, "in", HYDRO)
        check_volumes(masked_out, "spill", LINE_Q)
        check_volumes(masked_out, "pond", POLY_Q)
        if BACKEND == "cpu":
            run(silt, m, masked_out + "3", "--devices", "0,1,2", "--set",
                f"physics.scheme={scheme}")
            same(masked_out, masked_out + "3")
    check_polygon_as_cells(silt, work, lines, source)
    # A staircase: cell (i, j) of a 16 x 16 grid is active where j >= i - 4; the line runs along
    # its steps from (25, 0) to (80, 55) m at 45 degrees, through their inner corners: the east and
    # the south edge of each of its 11 steps, and neither the grid's south nor its east side beyond
    # the line's ends.
    stair = [[j >= i - 4 for i in range(16)] for j in range(16)]
    write_asc(os.path.join(work, "stair.asc"), stair, 0, 0)
    st = scene("stair", "stair.asc",
               [{"name": "diag", "line": [[25, 0], [80, 55]], "type": "discharge",
                 "discharge": HYDRO}])
    st["run"]["end_time"] = END
    sp = save(work, st)
    code, text = validate(silt, sp)
    if code != 0 or "diag: discharge line of 2 points, 22 edges" not in text:
        fail(f"silt validate stair.json: expected 22 edges, got ({code}) {text}")
    run(silt, sp, os.path.join(work, "stair"))
    check_volumes(os.path.join(work, "stair"), "diag", HYDRO)
    print("equal to side + range, volumes as the hydrographs, split as one part")

    key = "'boundaries[0].line'"
    bad = lambda name, line, extra=None: scene(
        name, "masked.asc", [{"name": "in", "line": line, "type": "discharge",
                              "discharge": 1.0}] + (extra or []))
    refused(silt, work, bad("off_edge", [[10, 10], [50, 10]]),
            [key, "boundary 0 'in'", "runs off the model's outer edge", "(15, 10) m",
             "in active cell (3, 2), is 5 m from the nearest edge", "within half a cell (2.5 m)"])
    refused(silt, work, bad("crossing", [[10, 10], [10, 30], [12, 20], [8, 20]]),
            [key, "boundary 0 'in'", "crosses itself", "meet at (10, 20)"])
    refused(silt, work, bad("nodata", [[0, 10], [0, 40]]),
            [key, "boundary 0 'in'", "over inactive (nodata) cell", "is 10 m from"])
    refused(silt, work, bad("no_edge", [[10, 20], [10, 21]]),
            [key, "boundary 0 'in'", "runs along no edge of an active cell"])
    refused(silt, work, bad("overlap", [[10, 10], [10, 35]],
                            [{"name": "wall", "line": [[10, 30], [10, 45]], "type": "wall"}]),
            ["'boundaries[1].line'", "boundary 1 'wall' overlaps boundary 'in' (boundary 0)",
             "west edge of cell (2, 6)"])
    refused(silt, work, bad("one_point", [[10, 10]]), [key, "boundary 0 'in'", "has 1 point"])
    sc = scene("line_nodata", "masked.asc", [],
               [{"name": "spill", "line": [[1, 1], [9, 50]], "discharge": 1.0}])
    refused(silt, work, sc, ["'sources[0].line'", "inflow line 0 'spill'",
                             "crosses no active cell"])
    poly = lambda name, pts: scene(name, "masked.asc", [],
                                   [{"name": "pond", "polygon": pts, "discharge": 1.0}])
    pkey = "'sources[0].polygon'"
    refused(silt, work, poly("poly_two", [[20, 10], [30, 20]]),
            [pkey, "inflow polygon 0 'pond'", "has 2 distinct points"])
    refused(silt, work, poly("poly_crossing", [[20, 10], [30, 20], [30, 10], [20, 20]]),
            [pkey, "inflow polygon 0 'pond'", "crosses itself", "meet at (25, 15)"])
    refused(silt, work, poly("poly_off", [[20, 10], [90, 10], [20, 20]]),
            [pkey, "inflow polygon 0 'pond'", "is off the grid", "point 1 (90, 10) m"])
    refused(silt, work, poly("poly_nodata", [[31, 21], [39, 21], [39, 29], [31, 29]]),
            [pkey, "inflow polygon 0 'pond'", "holds no active cell"])
    low = scene("level_low", "masked.asc",
                [{"name": "sea", "line": [[40, 45], [60, 45]], "type": "level",
                  "level": [[0, 0.2], [100, 0.9]]}])
    code, text = validate(silt, save(work, low))
    want = ["warning", "'boundaries[0].level' boundary 0 'sea'", "highest level, 0.9 m",
            "is at 1 m", "can only leave through it"]
    if code != 0 or any(w not in text for w in want):
        fail(f"level_low: expected a valid scene with a warning {want}, got ({code}) {text}")
    print("PASS")


if __name__ == "__main__":
    main()
