#!/usr/bin/env python3
"""SASS instruction counts of the shallow-water tile kernel (src/silt/swe/fused_step.cpp), per
precision, without a GPU: compiles the unit for sm_90 with the flags the build gives it
(--use_fast_math, -fno-math-errno) plus -lineinfo, disassembles it with nvdisasm and counts the
instructions of each fused_update_kernel instance by class.

Counts per kernel:
  all     every instruction of the kernel's body (its non-inlined callees are listed apart);
  hot     the path of a thread of a wet interior tile: the instructions whose source line (or a
          line of its inlining chain) lies outside the cold regions below (HLLE, the transonic
          branch of the entropy fix, a reconstructed depth that differs from the cell's, a film
          cell, a tile with an inactive staged cell, the dt == 0 copy, boundary inflow, point
          sources, fault reports). The kernel has no loops at run time (its rows per thread are
          unrolled), so each hot instruction runs at most once per thread; per cell update it is
          divided by the cell updates per thread, 31 (8 R - 1) / 256 for a block of 32 x 8
          threads whose threads own R rows each (the tile updates 31 x (8 R - 1) cells).
  issued  hot with each instruction weighted by the share of a block's warps that reach it
          (PARTIAL below: the staging of the north row and east column, the ghost row's missing
          east edges and updates, warp 0's part of the CFL maximum): what the warps issue.

The kernel is instantiated per set of TileFeature bits (fused_step.hpp: 1 rain rasters or
infiltration, 2 flow-boundary inflow, 4 point sources); the table shows the set without features
(F=0, what `silt bench swe` runs) and the one with all (F=7). A tree from before the feature
sets has one kernel, shown as "F=all". --features 0,1,... picks others.

Needs nvcc (NVCC, default /usr/local/cuda/bin/nvcc) and nvdisasm (NVDISASM, else PATH, else
next to nvcc; pip's nvidia-cuda-nvdisasm ships one). Prints a markdown table.
    python3 bench/swe_sass_counts.py [--keep DIR] [--features 0,7]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
UNIT = os.path.join(SRC, "silt/swe/fused_step.cpp")

# (file under src/, regex of the first line of a cold block): the block is that line through its
# matching closing brace.
COLD = [
    ("silt/swe/kernels/roe_flux_k.hpp", r"SILT_HD Flux<T> hlle_flux_k\("),
    # Each pair: the form before and after the kernels took packs (`if (math::any(c))`).
    ("silt/swe/kernels/roe_flux_k.hpp",
     r"if \(lam_l < T\(0\) && lam_r > T\(0\)|if \(math::any\(transonic\)\)"),
    ("silt/swe/kernels/bed_source_k.hpp",
     r"if \(h[lr] != [LR]\.h\) r[lr] = depth_roots_k|if \(math::any\(cut_[lr]\)\) r[lr] ="),
    ("silt/swe/kernels/bed_source_k.hpp",
     r"if \(!\(h[lr] > T\(0\)\) && dz [<>] T\(0\)\)|if \(math::any\(push_[lr]\)\) p[lr] ="),
    ("silt/swe/kernels/wet_dry_k.hpp", r"if \(!\(s\.h > dry\)\) return NormalState"),
    ("silt/swe/fused_step.cpp", r"__device__ double boundary_inflow\("),
    ("silt/swe/fused_step.cpp", r"if \(!\(v\.clock\[kDt\] > 0\.0\)\) \{"),
    # A cell's point sources: the loop over all of them, since 1e8282d from the first one found by
    # bisection (first_source, point_source.hpp, cold as that file is).
    ("silt/swe/fused_step.cpp",
     r"for \(Index k = 0; k < v\.n_sources|for \(Index k = first_source\("),
    ("silt/swe/fused_step.cpp", r"if \(v\.n_flow_cells > 0|if constexpr \(\(F & kTileFlowEdges\)"),
    ("silt/swe/fused_step.cpp", r"if \(code != kFaultNone"),
    # A tile with an inactive staged cell (shorelines, masks, the domain edge) takes the fluxes
    # with the general path; the wet interior's tiles are all active.
    ("silt/swe/fused_step.cpp", r"tile_fluxes<true>\("),
    ("silt/swe/fused_step.cpp", r"act = stage_cell<true>\("),
]
# (file under src/, regex of the first line of a block, fraction of a block's warp-passes that
# issue it, as a function of R, the tile rows per thread): code that only some warps of a tile
# reach. "issued" weights each hot instruction by it (the lowest fraction on its inlining chain),
# so issued / cells is what the tile's warps issue per cell update. Patterns of the older kernels
# are kept so that their trees count alike.
PARTIAL = [
    # Older kernels: the row north of the tile staged by the last warp, the east column by every
    # warp's last lane (all warps: weight 1).
    ("silt/swe/fused_step.cpp", r"if \(ty == TY - 1\) stage_cell", lambda R: 1 / 8),
    # The second staging pass: the first 32 + 8 R threads, two warps in eight.
    ("silt/swe/fused_step.cpp", r"act = stage_cell(<false>)?\(cells, sy, sx", lambda R: 2 / 8),
    # East-edge fluxes and the cell update: not in the ghost row (warp 0's first row).
    ("silt/swe/fused_step.cpp",
     r"if \(ty > 0 && j < box\.j1 && i < box\.i1\)|if \(ty > 0 && in_box\) \{",
     lambda R: (8 * R - 1) / (8 * R)),
    ("silt/swe/fused_step.cpp", r"const T speed = in_box \? update_tile_cell|const T s = update_tile_cell",
     lambda R: (8 * R - 1) / (8 * R)),
    # The block's CFL maximum over the warps' maxima: warp 0.
    ("silt/swe/fused_step.cpp", r"if \(warp == 0\) \{", lambda R: 1 / 8),
    # The step's scalars (and the tile's origin) written by thread 0.
    ("silt/swe/fused_step.cpp", r"if \(tid == 0\) step =|if \(tid == 0\) \{", lambda R: 1 / 8),
]
COLD_FILES = ["silt/swe/edges.hpp", "silt/swe/kernels/boundary_k.hpp", "silt/swe/point_source.hpp",
              "silt/core/error.hpp"]

CLASSES = [
    ("MUFU", r"^MUFU"),
    ("FP64 arith (DADD/DMUL/DFMA)", r"^D(ADD|MUL|FMA)\b"),
    ("FP64 compare/minmax (DSETP/DMNMX)", r"^D(SETP|MNMX)\b"),
    ("FP32 arith (FADD/FMUL/FFMA)", r"^F(ADD|MUL|FFMA|FMA)\b|^FFMA"),
    ("FP32 compare/select/minmax", r"^F(SETP|SEL|MNMX|CHK)\b"),
    ("integer/logic/select/move", r"^(I[A-Z0-9]*|LOP3|SEL|SHF|PRMT|MOV|LEA|PLOP3|P2R|R2P|VIADD|S2R|S2UR|CS2R|U[A-Z0-9]+|LDC|F2I|I2F|F2F|FRND)\b"),
    ("shared LDS/STS", r"^(LDS|STS)\b"),
    ("global LDG/STG/RED/ATOM", r"^(LDG|STG|RED|ATOM|ATOMG)\b"),
    ("local LDL/STL (spills)", r"^(LDL|STL)\b"),
    ("control (BRA/BSSY/BSYNC/CALL/RET/BAR/WARPSYNC/SHFL)", r"^(BRA|BSSY|BSYNC|CALL|RET|BAR|WARPSYNC|SHFL|EXIT|BREAK|NOP|YIELD|VOTE)\b"),
]


def find_nvdisasm(nvcc):
    env = os.environ.get("NVDISASM")
    if env:
        return env
    p = shutil.which("nvdisasm")
    if p:
        return p
    p = os.path.join(os.path.dirname(nvcc), "nvdisasm")
    if os.path.exists(p):
        return p
    sys.exit("nvdisasm not found: set NVDISASM (pip install nvidia-cuda-nvdisasm ships one)")


def block_lines(lines, k):
    """The 1-based numbers of the lines of the statement that starts on line k + 1 of lines: its
    braced block (braces matched), or up to its ';' when it has no brace."""
    out, depth, seen = [], 0, False
    for m in range(k, len(lines)):
        out.append(m + 1)
        depth += lines[m].count("{") - lines[m].count("}")
        seen = seen or "{" in lines[m]
        if seen and depth <= 0:
            break
        if not seen and lines[m].rstrip().endswith(";"):
            break  # a one-line statement without braces
    return out


def cold_lines():
    cold = collections.defaultdict(set)
    for rel, pattern in COLD:
        lines = open(os.path.join(SRC, rel)).read().split("\n")
        starts = [k for k, text in enumerate(lines) if re.search(pattern, text)]
        if not starts:  # an older tree (counting a commit before the region existed)
            print(f"note: cold region {pattern!r} not in {rel}", file=sys.stderr)
        for k in starts:
            cold[rel].update(block_lines(lines, k))
    return cold


def partial_lines(R):
    weight = collections.defaultdict(dict)
    for rel, pattern, f in PARTIAL:
        w = f(R)
        lines = open(os.path.join(SRC, rel)).read().split("\n")
        for k, text in enumerate(lines):
            if not re.search(pattern, text):
                continue
            for m in block_lines(lines, k):
                weight[rel][m] = min(w, weight[rel].get(m, 1.0))
    return weight


def issue_weight(frames, weight):
    w = 1.0
    for path, line in frames:
        w = min(w, weight.get(rel_of(path), {}).get(line, 1.0))
    return w


def rel_of(path):
    path = os.path.normpath(path)
    return os.path.relpath(path, SRC) if path.startswith(SRC) else path


def is_cold(frames, cold):
    for path, line in frames:
        rel = rel_of(path)
        if rel in COLD_FILES or line in cold.get(rel, ()):
            return True
    return False


LOC = re.compile(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?);")
LABEL = re.compile(r"^(\.L_x_\d+):")


def parse_functions(sass):
    """{function name: ([(address, text, frames)], {label: address})} from nvdisasm -c -gi
    output; text without its predicate."""
    funcs = collections.OrderedDict()
    cur, frames, in_chain, pend = None, [], False, []
    for line in sass.split("\n"):
        m = re.match(r"^\s*\.type\s+(\S+),@function", line)
        if m:
            cur = m.group(1)
            funcs[cur] = ([], {})
            frames, pend = [], []
            continue
        m = LABEL.match(line)
        if m and cur:
            pend.append(m.group(1))
            continue
        m = LOC.search(line)
        if m:
            # nvdisasm prints an instruction's inlining chain as consecutive lines, innermost
            # first, each with the line it was inlined at.
            if not in_chain:
                frames = []
            in_chain = True
            frames.append((m.group(1), int(m.group(2))))
            if m.group(3):
                frames.append((m.group(3), int(m.group(4))))
            continue
        in_chain = False
        m = INSN.match(line)
        if m and cur:
            a = int(m.group(1), 16)
            funcs[cur][0].append((a, re.sub(r"^@!?U?P[T0-9]\s+", "", m.group(2).strip()),
                                  list(frames)))
            for label in pend:
                funcs[cur][1][label] = a
            pend = []
    return funcs


def parse(sass):
    """{function name: [(opcode, frames)]} from nvdisasm -c -gi output."""
    return collections.OrderedDict(
        (name, [(text.split()[0], frames) for _, text, frames in ins])
        for name, (ins, _) in parse_functions(sass).items())


def classify(op):
    base = op.split(".")[0]
    for name, pattern in CLASSES:
        if re.match(pattern, base):
            return name
    return "other"


def counts(insns):
    c = collections.Counter()
    for op, _ in insns:
        c["total"] += 1
        c[classify(op)] += 1
        base = op.split(".")[0]
        if base == "CALL":
            c["CALL (div/sqrt slow paths, callees)"] += 1
        if base == "MUFU":
            c["  " + op] += 1
    return c


def compile_unit(nvcc, nvdisasm, src, cubin):
    cmd = [nvcc, "-DFMT_HEADER_ONLY=1", "-DSILT_BUILD_WITH_CUDA=1", "-I" + src, "-O3", "-DNDEBUG",
           "--generate-code=arch=compute_90,code=[sm_90]", "--extended-lambda",
           "--expt-relaxed-constexpr", "-Xcompiler=-fopenmp", "-Xcompiler=-fno-math-errno",
           "--use_fast_math", "-std=c++17", "-lineinfo", "-Xptxas", "-v", "-x", "cu", "-cubin",
           os.path.join(src, "silt/swe/fused_step.cpp"), "-o", cubin]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    sass = subprocess.run([nvdisasm, "-c", "-gi", cubin], capture_output=True, text=True,
                          check=True).stdout
    return sass, r.stderr


def short(name):
    """A callee's name without its kernel's prefix and the unit's internal namespaces."""
    name = re.sub(r"^\$_Z\w*?fused_update_kernel\w*?Box2E\$", "", name)
    m = re.search(r"(general_edge_flux|tile_infiltrate)I([fd])E", name)
    if m:
        return f"{m.group(1)}<{'float' if m.group(2) == 'f' else 'double'}>"
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", help="write the cubin, SASS and ptxas report into this folder")
    ap.add_argument("--features", default="0,7",
                    help="TileFeature sets to count (comma-separated bits; default 0,7)")
    args = ap.parse_args()
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    nvdisasm = find_nvdisasm(nvcc)
    out = args.keep or tempfile.mkdtemp(prefix="swe-sass-")
    os.makedirs(out, exist_ok=True)
    cubin = os.path.join(out, "fused_step.cubin")
    sass, ptxas = compile_unit(nvcc, nvdisasm, SRC, cubin)
    if args.keep:
        open(os.path.join(out, "fused_step.sass"), "w").write(sass)
        open(os.path.join(out, "ptxas.txt"), "w").write(ptxas)
    funcs = parse(sass)
    cold = cold_lines()
    wanted = [int(f) for f in args.features.split(",")]
    kernels = []
    for n in funcs:
        if not (n.startswith("_Z") and "fused_update_kernel" in n):
            continue
        prec = "float32" if "kernelIf" in n else "float64"
        m = re.search(r"fused_update_kernelI[fd]((?:Li\d+E){3,4})Lj(\d+)E", n)
        if m and int(m.group(2)) not in wanted:
            continue
        ints = [int(x) for x in re.findall(r"Li(\d+)E", m.group(1))] if m else []
        nrows = ints[2] if len(ints) == 4 else 1  # tile rows per thread (1 before kTileRows)
        kernels.append((f"{prec} F={m.group(2) if m else 'all'}", n, nrows))
    kernels.sort()
    cols, rows, issued = [], collections.OrderedDict(), {}
    cells = {}
    for prec, name, R in kernels:
        insns = funcs[name]
        cells[f"{prec} hot"] = 31 * (8 * R - 1) / 256  # cell updates per thread of a 32 x 8 block
        weight = partial_lines(R)
        hot = [x for x in insns if not is_cold(x[1], cold)]
        issued[f"{prec} hot"] = sum(issue_weight(f, weight) for _, f in hot)
        for label, part in (("all", insns), ("hot", hot)):
            cols.append(f"{prec} {label}")
            for k, v in counts(part).items():
                rows.setdefault(k, {})[cols[-1]] = v
    print("| SASS instructions, sm_90 | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    order = ["total"] + [n for n, _ in CLASSES] + ["other", "CALL (div/sqrt slow paths, callees)"]
    order += sorted(k for k in rows if k.startswith("  "))
    for k in order:
        if k in rows:
            print(f"| {k} | " + " | ".join(str(rows[k].get(c, 0)) for c in cols) + " |")
    print("| cell updates per thread (31 x (8 R - 1) / 256) | " +
          " | ".join(f"{cells[c]:.3f}" if c in cells else "" for c in cols) + " |")
    print("| hot per cell update | " +
          " | ".join(f"{rows['total'][c] / cells[c]:.0f}" if c in cells else "" for c in cols) + " |")
    print("| issued per cell update (warp-weighted hot) | " +
          " | ".join(f"{issued[c] / cells[c]:.0f}" if c in cells else "" for c in cols) + " |")
    print()
    # Callees (ptxas gives each kernel its own copy): those of the kernels shown.
    others = [(n, len(v)) for n, v in funcs.items() if not n.startswith("_Z") and
              (not n.startswith("$_Z") or any(n.startswith("$" + k + "$") for _, k, _ in kernels))]
    if others:
        print("Callees: " + ", ".join(f"{short(n)} ({k})" for n, k in others))
    for prec, name, _ in kernels:
        m = re.search(r"Function properties for " + re.escape(name) + r"\n\s*(.*)\n.*?Used (\d+) registers",
                      ptxas)
        if m:
            print(f"ptxas {prec}: {m.group(2)} registers, {m.group(1).strip()}")


if __name__ == "__main__":
    main()
