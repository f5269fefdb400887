#!/usr/bin/env python3
"""SASS instructions of the first-order tile kernel (src/silt/swe/fused_step.cpp,
fused_update_kernel) per source region and owned cell, for chosen float64 feature sets, without a
GPU; with --dem, what a masked grid's tiles execute of them (the tile kernel over a grid of nodata
cells, as bench/swe_real_run.sh makes it).

Compiles the unit as swe_sass_counts.py does (sm_90, the build's flags, -lineinfo; or --cubin),
disassembles it with nvdisasm -c -gi and assigns each instruction of the one-view kernel
(N = 1) of each feature set F (TileFeature bits: 1 forcing, 2 flow edges, 4 point sources,
8 hazard fold) to the first region below that a line of its inlining chain lies in. The kernel has
no loop (float64: one row per thread), so a region's static count is what a warp issues when it
passes through it: per owned cell it is divided by 31 x 7 / 256 cell updates per thread, and
regions that only some warps reach are weighted (the north row and east column staging: 2 warps
of 8; the CFL maximum over warps: 1 of 8; east edges and updates: 7 of 8 warps).

--dem FILE (ESRI ASCII, NODATA inactive): counts the tiles that the engine launches
(active_tiles()), those whose 296 staged cells are all active (all_active: the fast flux copy) and
the mixed ones, and per warp of a mixed tile whether it issues the staged flux, the general call
(any lane: an edge with an inactive side, two inactive sides included) and the update of an
active cell. Prints issued instructions per launched and per active cell for the bench's set and
the DEM's, with the hazard fold taken by every owned active cell (all wet: an upper bound) and by
none (a lower bound), and a grid without water (h = 0 everywhere: a flood's dry land), where the
tiles within the grid take the dry copy (tile_dry_fluxes) on trees that have it and a staged cell
of depth 0 calls the square root's medium path on trees that do not. Mask walls inline: a
one-sided edge inside the grid takes the inline wall region, one on the grid's edge the call.
The callee general_edge_flux is counted by path (CALLEE): its short path
(the active flags, the zero flux of two inactive sides) for every warp that calls it, plus a mask
wall's segment, cell state and wall flux (static: an upper bound of one path) for every warp
with a lane beside a wall.
    NVDISASM=.../nvdisasm python3 bench/swe_tile_sass_counts.py [--features 0,8,10]
        [--cubin FILE [--ptxas FILE]] [--keep DIR] [--dem FILE]
"""
import argparse
import collections
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swe_sass_counts as S  # noqa: E402

UNIT = "silt/swe/fused_step.cpp"
TX, TY = 32, 8
CELLS_PER_THREAD = 31 * 7 / 256  # float64: a tile updates 31 x 7 cells with 256 threads

# (region, file, regex of the first line of a block: the block is that line through its matching
# brace, or the statement when it has none), in priority order: an instruction belongs to the
# first region whose lines its inlining chain touches.
REGIONS = [
    ("dt == 0 copy", UNIT, r"if \(!\(v\.clock\[kDt\] > 0\.0\)\) \{"),
    ("hazard fold", UNIT, r"if constexpr \(\(F & kTileHazard\) != 0\) \{"),
    ("hazard fold", UNIT, r"SILT_FORCEINLINE void tile_hazard\("),
    ("flow edges: inflow of a domain-edge cell", UNIT, r"const double q = boundary_inflow\("),
    ("flow edges: inflow of a domain-edge cell", UNIT, r"if \(q != 0\.0\) atomic_add"),
    ("flow edges: the domain-edge test", UNIT, r"if constexpr \(\(F & kTileFlowEdges\) != 0\) \{"),
    ("point sources", UNIT, r"if constexpr \(\(F & kTileSources\) != 0\) \{"),
    ("forcing", UNIT, r"if constexpr \(\(F & kTileForcing\) != 0\) \{"),
    ("forcing", UNIT, r"\} else if constexpr \(\(F & kTileForcing\) != 0\) \{"),
    ("fault report", UNIT, r"if \(code != kFaultNone && owned\)"),
    ("cell update (update_cell_k)", UNIT, r"const int code = update_cell_k\("),
    ("edge fluxes loaded (phase 2)", UNIT, r"const EdgeFlux<T> w = flux\.at\("),
    ("CFL wave speed", UNIT, r"if \(owned\) speed = wave_speed_k"),
    ("max depth", UNIT, r"T md = in\.max_depth;"),
    ("max depth", UNIT, r"if \(s\.h > md\) md = s\.h;"),
    ("max depth", UNIT, r"if \(md != in\.max_depth\)"),
    ("fluxes, dry tile (zero fluxes)", UNIT, r"tile_dry_fluxes\(flux, ty"),
    ("fluxes, general copy: mask wall inline (east)", UNIT,
     r"flux\.set\(0, ty, tx, staged_wall_flux\("),
    ("fluxes, general copy: mask wall inline (north)", UNIT,
     r"flux\.set\(1, ty, tx, staged_wall_flux\("),
    ("fluxes, general copy", UNIT, r"tile_fluxes<true>\(cells"),
    ("fluxes, all-active copy", UNIT, r"tile_fluxes<false>\(cells"),
    ("stage own cell, checked", UNIT, r"act = stage_cell<true>\(cells, ty"),
    ("stage own cell", UNIT, r"act = stage_cell<false>\(cells, ty"),
    ("stage north row / east column", UNIT, r"act = stage_cell<(true|false)>\(cells, sy"),
    ("stage north row / east column", UNIT, r"if \(tid < TX \+ NY\) \{"),
    ("phase 2 reads", UNIT, r"reads\[r\] = read_cell\("),
    ("update: rest (owned, stores)", UNIT, r"const T s = update_tile_cell<F>\("),
    ("CFL block maximum", UNIT, r"block_max_to<T, TX, TY>\("),
]
# Share of a block's warps that pass through a region (float64, R = 1); phase 2 (PHASE2): 7 of 8,
# warp 0 being the ghost row (y = 0), which updates no cell.
WARPS = {"stage north row / east column": 2 / 8, "CFL block maximum": 1 / 8}
PHASE2 = ["hazard fold", "flow edges: inflow of a domain-edge cell",
          "flow edges: the domain-edge test", "point sources", "forcing",
          "fault report", "cell update (update_cell_k)", "edge fluxes loaded (phase 2)",
          "CFL wave speed", "max depth", "update: rest (owned, stores)", "phase 2 reads"]
# Regions a wet interior tile of the bench does not pass.
COLD = {"dt == 0 copy", "fluxes, general copy", "stage own cell, checked", "point sources",
        "fault report", "flow edges: inflow of a domain-edge cell",
        "fluxes, general copy: mask wall inline (east)",
        "fluxes, general copy: mask wall inline (north)", "fluxes, dry tile (zero fluxes)"}

# The out-of-line general edge flux (general_edge_flux: edges.hpp, edge_flux) by the path a lane
# takes from the tile (both sides active never: those edges take the staged flux): (path, file,
# regex of a line, through its statement or block). "short": the active flags and the zero flux
# of two inactive sides; "one side": the segment and the wall / open / level flux of one active
# side (a mask wall or an open side of the grid; static: an upper bound, the flux's other kinds'
# branches included).
EDGES = "silt/swe/edges.hpp"
SEG_FLUX = "one side: segment's wall / open / level flux"
FLOW = "one side: flow kinds (not here)"
CALLEE = [
    ("both sides active (not taken)", EDGES, r"if \(left && right\)$"),
    ("one side: segment", EDGES,
     r"const int seg = boundary_segment\(v, i, j, d, right\)"),
    (FLOW, EDGES, r"const Index step = ghost_left \? 1 : -1;"),
    (FLOW, EDGES, r"const Index ni = d == Dir::x"),
    (FLOW, EDGES, r"EdgeForcing<T> f = edge_forcing\(v, i, j, ni"),
    (FLOW, EDGES, r"if \(at_face\) f\.dz"),
    (FLOW, EDGES, r"return flow_boundary_flux_k\(kind, in, f"),
    ("one side: wall flux (seg < 0)", EDGES,
     r"if \(seg < 0\) return boundary_edge_flux_k\(kWall"),
    (SEG_FLUX, EDGES,
     r"const int kind = v\.seg_kind\[seg\];"),
    (SEG_FLUX, EDGES,
     r"if \(kind == kWall \|\| kind == kOpen"),
    (SEG_FLUX, EDGES,
     r"return boundary_edge_flux_k\(kind, in, z"),
    ("one side: cell state", EDGES, r"if \(right\) return boundary_flux\(v, i, j, d, seg"),
    ("one side: cell state", EDGES, r"return boundary_flux\(v, il, jl, d, seg"),
]


def region_lines():
    out = []
    for name, rel, pattern in REGIONS:
        lines = open(os.path.join(S.SRC, rel)).read().split("\n")
        starts = [k for k, t in enumerate(lines) if re.search(pattern, t)]
        if not starts:
            print(f"note: region {pattern!r} not in {rel}", file=sys.stderr)
        got = set()
        for k in starts:
            got.update(S.block_lines(lines, k))
        out.append((name, rel, got))
    return out


def callee_lines():
    out = []
    for name, rel, pattern in CALLEE:
        lines = open(os.path.join(S.SRC, rel)).read().split("\n")
        got = set()
        for k, t in enumerate(lines):
            if re.search(pattern, t):
                got.add(k + 1)
                m = k
                while not lines[m].rstrip().endswith((";", "{")) and m + 1 < len(lines):
                    m += 1
                    got.add(m + 1)
        if not got:
            print(f"note: callee region {pattern!r} not in {rel}", file=sys.stderr)
        out.append((name, rel, got))
    return out


def callee_paths(ins):
    """{path: static instructions} of general_edge_flux; the rest is "short"."""
    regions = callee_lines()
    c = collections.Counter()
    for _, _, frames in ins:
        name = "short"
        for n, rel, got in regions:
            if any(S.rel_of(p) == rel and line in got for p, line in frames):
                name = n
                break
        c[name] += 1
    return c


def region_of(frames, regions):
    for name, rel, got in regions:
        for path, line in frames:
            if S.rel_of(path) == rel and line in got:
                return name
    return "prologue, tile index, barriers, other"


def feature_kernels(funcs, features):
    """{F: (kernel name, callee names)} of the float64 one-view kernels."""
    out = {}
    for n in funcs:
        m = re.search(r"fused_update_kernelIdLi32ELi8ELi1ELi4ELj(\d+)ELi1EE", n)
        if m and n.startswith("_Z") and int(m.group(1)) in features:
            callees = [c for c in funcs if c.startswith("$" + n + "$")]
            out[int(m.group(1))] = (n, callees)
    return out


def classes(ins):
    c = collections.Counter()
    for text, _ in ins:
        op = text.split()[0]
        c["total"] += 1
        c[S.classify(op)] += 1
        base = op.split(".")[0]
        if base in ("CALL", "BRA", "BSSY", "BSYNC", "RET"):
            c["  " + base] += 1
        if base == "MUFU":
            c["  " + ".".join(op.split(".")[:2])] += 1
        if base in ("LDG", "STG", "LDS", "STS", "LDL", "STL", "LD", "ST", "ATOMG", "RED"):
            c["  " + base] += 1
    return c


def mask_stats(path):
    """Tiles of the grid of ESRI ASCII `path` as the engine launches them (float64)."""
    import numpy as np
    head = {}
    with open(path) as f:
        for _ in range(6):
            k, v = f.readline().split()
            head[k.lower()] = float(v)
    a = np.loadtxt(path, skiprows=6)[::-1]
    act = a != head.get("nodata_value", -9999)
    ny, nx = act.shape
    P = np.zeros((ny + 2, nx + 2 + TX), bool)
    P[1:ny + 1, 1:nx + 1] = act  # P[j + 1, i + 1]; outside the grid inactive (one device)
    cols, rows = TX - 1, TY - 1
    gx, gy = (nx + cols - 1) // cols, (ny + rows - 1) // rows
    st = collections.Counter(grid_tiles=gx * gy, cells=nx * ny, active=int(act.sum()))
    for by in range(gy):
        j0 = by * rows - 1
        for bx in range(gx):
            i0 = bx * cols - 1
            own = act[max(0, j0 + 1):min(ny, j0 + TY), max(0, i0 + 1):min(nx, i0 + TX)]
            if not own.any():
                continue
            st["tiles"] += 1
            st["launched cells"] += own.size
            blk = np.zeros((TY + 1, TX + 1), bool)
            for y in range(TY + 1):
                blk[y] = P[j0 + y + 1, i0 + 1:i0 + TX + 2] if 0 <= j0 + y + 1 < ny + 2 else False
            staged = blk.copy()
            staged[TY, TX] = True  # the corner is not staged
            # Every staged cell within the grid: with no boundary line and no water in the tile,
            # the dry path (tile_dry_fluxes) whether its cells are all active or not.
            in_grid = i0 >= 0 and j0 >= 0 and i0 + TX < nx and j0 + TY < ny
            st["tiles within the grid"] += in_grid
            if staged.all():
                st["all-active tiles"] += 1
                st["warps update (all-active)"] += 7
                continue
            st["mixed tiles"] += 1
            st["mixed cells"] += own.size
            st["mixed tiles within the grid"] += in_grid
            for y in range(TY):
                inb = [(j0 + y < ny) and (i0 + x < nx) for x in range(TX)]
                # east edges (not the ghost row), north edges (not the ghost column)
                east = [(blk[y, x] and blk[y, x + 1]) for x in range(TX) if y > 0 and inb[x]]
                north = [(blk[y, x] and blk[y + 1, x]) for x in range(1, TX) if inb[x]]
                # lanes whose edge has an inactive side: one (a wall or an open side) or both
                one_e = [x for x in range(TX) if y > 0 and inb[x] and blk[y, x] != blk[y, x + 1]]
                one_n = [x for x in range(1, TX) if inb[x] and blk[y, x] != blk[y + 1, x]]
                # a one-sided edge inside the grid is a mask wall (inline); on the grid's edge it
                # calls general_edge_flux
                wall_e = [x for x in one_e if 0 < i0 + x + 1 < nx]
                wall_n = [x for x in one_n if 0 < j0 + y + 1 < ny]
                for name, e, one, wall in (("east", east, one_e, wall_e),
                                           ("north", north, one_n, wall_n)):
                    if any(e):
                        st[f"warp {name} staged"] += 1
                    if not all(e):
                        st[f"warp {name} general"] += 1
                    if one:
                        st[f"warp {name} one side"] += 1
                    if wall:
                        st[f"warp {name} wall"] += 1
                    if len(wall) < len(one):
                        st[f"warp {name} grid edge"] += 1
                    st[f"lane {name} general"] += len(e) - sum(e)
                    st[f"lane {name} one side"] += len(one)
                if y > 0:
                    upd = [blk[y, x] for x in range(1, TX) if inb[x]]
                    if any(upd):
                        st["warps update (mixed)"] += 1
                    elif any(inb[1:]):
                        st["warps store only (mixed)"] += 1
    return st


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--features", default="0,8,10")
    ap.add_argument("--cubin", help="an sm_90 cubin of fused_step.cpp built with -lineinfo")
    ap.add_argument("--ptxas", help="ptxas -v report of that cubin's compile (with --cubin)")
    ap.add_argument("--keep", help="write the cubin, SASS and ptxas report into this folder")
    ap.add_argument("--dem", help="ESRI ASCII grid whose NODATA cells are inactive")
    args = ap.parse_args()
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    nvdisasm = S.find_nvdisasm(nvcc)
    ptxas = ""
    if args.cubin:
        import subprocess
        sass = subprocess.run([nvdisasm, "-c", "-gi", args.cubin], capture_output=True,
                              text=True, check=True).stdout
        ptxas = open(args.ptxas).read() if args.ptxas else ""
    else:
        out = args.keep or tempfile.mkdtemp(prefix="swe-tile-sass-")
        os.makedirs(out, exist_ok=True)
        sass, ptxas = S.compile_unit(nvcc, nvdisasm, S.SRC, os.path.join(out, "fused_step.cubin"))
        if args.keep:
            open(os.path.join(out, "fused_step.sass"), "w").write(sass)
            open(os.path.join(out, "ptxas.txt"), "w").write(ptxas)
    funcs = S.parse_functions(sass)
    features = [int(f) for f in args.features.split(",")]
    kernels = feature_kernels(funcs, features)
    regions = region_lines()
    names = list(dict.fromkeys([r[0] for r in REGIONS])) + ["prologue, tile index, barriers, other"]
    per = {}  # F -> region -> Counter
    callee_len = {}
    for F in features:
        name, callees = kernels[F]
        by = collections.defaultdict(list)
        for _, text, frames in funcs[name][0]:
            by[region_of(frames, regions)].append((text, frames))
        per[F] = {r: classes(v) for r, v in by.items()}
        per[F]["(all)"] = classes([(t, f) for _, t, f in funcs[name][0]])
        callee_len[F] = {re.sub(r".*\$_ZN\w*?(general_edge_flux|tile_infiltrate)\w*", r"\1", c):
                         classes([(t, f) for _, t, f in funcs[c][0]]) for c in callees}
        gen = [c for c in callees if "general_edge_flux" in c]
        if gen:
            callee_len[F]["paths"] = callee_paths(funcs[gen[0]][0])
        m = re.search(r"Function properties for " + re.escape(name) +
                      r"\n\s*(.*)\n.*?Used (\d+) registers", ptxas)
        if m:
            print(f"ptxas F={F}: {m.group(2)} registers, {m.group(1).strip()}")

    print("\n## Static SASS instructions per region (float64, one-view kernel, sm_90)\n")
    print("| region | " + " | ".join(f"F={F}" for F in features) + " | warps |")
    print("|---" * (len(features) + 2) + "|")
    for r in names + ["(all)"]:
        if not any(per[F].get(r, {}).get("total") for F in features):
            continue
        w = WARPS.get(r, 7 / 8 if r in PHASE2 else 1.0)
        print(f"| {r} | " + " | ".join(str(per[F].get(r, {}).get("total", 0)) for F in features)
              + f" | {w:.3g} |")
    for F in features:
        for c, k in callee_len[F].items():
            if c == "paths":
                continue
            print(f"| callee {c} (F={F}) | " + " | ".join(
                str(k['total']) if G == F else "" for G in features) + " | per call |")
    paths = callee_len[features[-1]].get("paths", {})
    print(f"\ngeneral_edge_flux (F={features[-1]}) by the path of a lane: " +
          ", ".join(f"{k} {v}" for k, v in sorted(paths.items())))

    print("\n## Instruction classes, whole kernel body (static)\n")
    keys = ["total"] + [n for n, _ in S.CLASSES] + ["other"]
    keys += sorted({k for F in features for k in per[F]["(all)"] if k.startswith("  ")})
    print("| class | " + " | ".join(f"F={F}" for F in features) + " |")
    print("|---" * (len(features) + 1) + "|")
    for k in keys:
        vals = [per[F]["(all)"].get(k, 0) for F in features]
        if any(vals):
            print(f"| {k.strip()} | " + " | ".join(str(v) for v in vals) + " |")

    # Issued per owned cell on a wet interior tile (every warp through the hot regions).
    def issued(F, skip=(), scale=None):
        tot = collections.Counter()
        for r, c in per[F].items():
            if r == "(all)" or r in COLD or r in skip:
                continue
            w = WARPS.get(r, 7 / 8 if r in PHASE2 else 1.0)
            if scale and r in scale:
                w *= scale[r]
            for k, v in c.items():
                tot[k] += v * w
        return tot

    print("\n## Issued per owned cell, a wet all-active tile (hot regions, warp-weighted)\n")
    print("| class | " + " | ".join(f"F={F}" for F in features) + " |")
    print("|---" * (len(features) + 1) + "|")
    iss = {F: issued(F) for F in features}
    for k in keys:
        vals = [iss[F].get(k, 0) / CELLS_PER_THREAD for F in features]
        if any(vals):
            print(f"| {k.strip()} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")
    print("\n| region, issued per owned cell | " + " | ".join(f"F={F}" for F in features) + " |")
    print("|---" * (len(features) + 1) + "|")
    for r in names:
        if r in COLD:
            continue
        vals = [per[F].get(r, {}).get("total", 0) * WARPS.get(r, 7 / 8 if r in PHASE2 else 1.0)
                / CELLS_PER_THREAD for F in features]
        if any(vals):
            print(f"| {r} | " + " | ".join(f"{v:.1f}" for v in vals) + " |")

    if not args.dem:
        return
    st = mask_stats(args.dem)
    print("\n## The DEM's tiles\n")
    for k in sorted(st):
        print(f"- {k}: {st[k]}")
    # Issued per block, by tile kind, for each F; then per launched and per active cell.
    real = features[-1]
    print("\n## Issued instructions per launched and per active cell on the DEM's tiles\n")

    def tot(F, r):
        return per[F].get(r, {}).get("total", 0)

    paths = callee_len[real].get("paths", {})
    short_call = paths.get("short", 0)
    # A mask wall (every one-sided edge inside the grid here): segment, cell state, wall flux. An
    # edge on the grid's open sides takes the segment's flux instead (the tiles at the grid's edge).
    one_call = (paths.get("one side: segment", 0) + paths.get("one side: cell state", 0) +
                paths.get("one side: wall flux (seg < 0)", 0))
    print(f"general_edge_flux per warp call: {short_call} (short path), + {one_call} where a lane "
          "has one active side (a mask wall: segment, cell state, wall flux; static)\n")
    # A staged cell of depth 0 on a tree without the kernel's shortcut (stage_cell: the roots of a
    # depth 0 are that depth) calls the square root's medium path twice; its path for 0 issues 17
    # instructions (sm_90, nvcc 13.0) that the static count of the callee-less body leaves out.
    unit = open(os.path.join(S.SRC, UNIT)).read()
    sqrt0 = 0 if "no_water ? DepthRoots" in unit else 2 * 17
    print(f"staging a cell of depth 0 adds {sqrt0} instructions of the square root's medium path "
          "(callee, not in the static body)\n")
    print("| F | water | per launched cell | per active cell |")
    print("|---|---|---|---|")
    cases = (("every active cell wet (hazard fold in each)", 1.0, False),
             ("none above the hazard depth", 0.0, False),
             ("none at all (h = 0: dry land)", 0.0, True))
    for F in features:
        for label, haz, dry in cases:
            # warp passes per block of each region: 8 warps
            blocks = st["tiles"]
            w = 0.0
            common = ["prologue, tile index, barriers, other", "stage own cell", "phase 2 reads"]
            w += blocks * 8 * sum(tot(F, r) for r in common)
            w += blocks * 2 * tot(F, "stage north row / east column")
            w += blocks * 1 * tot(F, "CFL block maximum")
            if dry:
                w += (blocks * 8 + blocks * 2) * sqrt0
            # a tile without water takes the dry copy where the tree has one: every all-active
            # tile, and the mixed tiles whose staged cells lie within the grid (no boundary line)
            has_dry = dry and tot(F, "fluxes, dry tile (zero fluxes)") > 0
            dry_mixed = st["mixed tiles within the grid"] if has_dry else 0
            if has_dry:
                w += ((st["all-active tiles"] + dry_mixed) * 8
                      * tot(F, "fluxes, dry tile (zero fluxes)"))
            else:
                w += st["all-active tiles"] * 8 * tot(F, "fluxes, all-active copy")
            # general copy: its static instructions once per warp of a mixed tile, the inline wall
            # flux per warp with a wall lane, the general call per warp with a lane on the grid's
            # edge (a tree without inline walls: the call for every lane with an inactive side)
            share = 1.0 - dry_mixed / max(1, st["mixed tiles"])  # mixed tiles not on the dry path
            w += (st["mixed tiles"] - dry_mixed) * 8 * tot(F, "fluxes, general copy")
            wall_e = tot(F, "fluxes, general copy: mask wall inline (east)")
            wall_n = tot(F, "fluxes, general copy: mask wall inline (north)")
            if wall_e > 0:
                w += share * (st["warp east wall"] * wall_e + st["warp north wall"] * wall_n)
                w += ((st["warp east grid edge"] + st["warp north grid edge"])
                      * (short_call + one_call))
            else:
                w += (st["warp east general"] + st["warp north general"]) * short_call
                w += (st["warp east one side"] + st["warp north one side"]) * one_call
            upd = st["warps update (all-active)"] + st["warps update (mixed)"]
            for r in PHASE2:
                if r in ("phase 2 reads", "point sources", "forcing", "fault report",
                         "flow edges: inflow of a domain-edge cell"):
                    continue
                k = tot(F, r) * (haz if r == "hazard fold" else 1.0)
                if r == "update: rest (owned, stores)":
                    w += (upd + st["warps store only (mixed)"]) * k
                else:
                    w += upd * k
            print(f"| {F} | {label} | "
                  f"{w * 32 / st['launched cells']:.0f} | {w * 32 / st['active']:.0f} |")


if __name__ == "__main__":
    main()
