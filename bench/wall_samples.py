#!/usr/bin/env python3
"""Where a process's host threads waited, from the samples bench/wall_sampler.c wrote: the samples
of each thread; the top 30 wait sites (the innermost frame in the main executable, or in a function
matching --focus, with the innermost frame's function: where the thread was, e.g. a futex wait, an
ioctl or a cuda* call); with --stacks N the N most common stacks (innermost first). Frames are named
with addr2line (one call per object file), else with the nearest symbol from nm, else "obj+0xoff".
--skip-idle REGEX leaves out the samples whose stack holds a function matching REGEX (a pool's idle
wait). --exe names the executable to read when the sampled one moved. A new thread's first sample
can land in start_thread (signals stay blocked while a thread starts). Prints numbers, asserts
nothing.
    python3 bench/wall_samples.py FILE [--exe PATH] [--focus REGEX] [--stacks N]
        [--skip-idle REGEX] [--threads N] [--full-names]"""
import argparse
import bisect
import collections
import os
import re
import struct
import subprocess


def read_samples(path):
    """(exe, thread names, maps rows, samples); a sample is (tid, [addresses], innermost first)."""
    exe, names, maps, samples = None, {}, [], []
    in_maps = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if in_maps:
                if line == "maps end":
                    in_maps = False
                    continue
                parts = line.split(None, 5)
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                obj = parts[5].strip() if len(parts) > 5 else ""
                maps.append((lo, hi, parts[1], int(parts[2], 16), obj))
            elif line == "maps begin":
                in_maps = True
            elif line.startswith("exe "):
                exe = line[4:]
            elif line.startswith("thread "):
                _, tid, name = line.split(" ", 2)
                names[int(tid)] = name
            elif line.startswith("wall_sampler"):
                print("  " + line)
            elif line:
                parts = line.split()
                samples.append((int(parts[0]), [int(a, 16) for a in parts[2:2 + int(parts[1])]]))
    maps.sort()
    return exe, names, maps, samples


def load_segments(obj):
    """The PT_LOAD segments of a 64-bit little-endian ELF file as (file offset, vaddr, size,
    executable)."""
    try:
        with open(obj, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return []
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return []
    segs = []
    for k in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", table,
                                                                              k * phentsize)
        if p_type == 1:  # PT_LOAD
            segs.append((p_offset, p_vaddr, p_filesz, bool(p_flags & 1)))
    return segs


def nm_symbols(obj):
    """Sorted (address, size, name) of the object's functions, from its symbol table or else its
    dynamic symbols (which leave out the library's internal functions)."""
    for extra in ([], ["-D"]):
        try:
            out = subprocess.run(["nm", "-C", "-S", "--defined-only"] + extra + [obj],
                                 capture_output=True, text=True).stdout
        except OSError:
            return []
        syms = []
        for line in out.splitlines():
            parts = line.split(None, 3)  # address size type name
            if len(parts) == 4 and parts[2] in "tTwWiI":
                name = re.sub(r"@@?[\w.]+$", "", parts[3])  # GOMP_parallel@@GOMP_4.0
                syms.append((int(parts[0], 16), int(parts[1], 16), name))
        if syms:
            return sorted(syms)
    return []


class Symbolizer:
    def __init__(self, maps, exe, exe_override):
        self.maps, self.starts = maps, [m[0] for m in maps]
        self.exe, self.exe_override = exe, exe_override
        self.names = {}  # address -> (function, file:line or "", object)
        self.full_names = False

    def locate(self, addr):
        """(object path as mapped, offset in the file, mapping executable) of a runtime address."""
        k = bisect.bisect_right(self.starts, addr) - 1
        if k < 0 or addr >= self.maps[k][1]:
            return None, addr, False
        lo, _, perms, off, obj = self.maps[k]
        return obj, addr - lo + off, "x" in perms

    def resolve(self, samples):
        # A frame past the innermost one holds a return address: its call is the byte before.
        wanted = collections.defaultdict(set)  # object -> {(runtime address, file offset, x)}
        for _, frames in samples:
            for i, a in enumerate(frames):
                if a in self.names:
                    continue
                obj, off, x = self.locate(a - (1 if i else 0))
                if obj is None or not obj.startswith("/"):
                    self.names[a] = (f"{obj or '?'}+{off:#x}" if obj else f"{a:#x}", "", obj or "?")
                else:
                    wanted[obj].add((a, off, x))
        for obj, pairs in wanted.items():
            self.resolve_object(obj, sorted(pairs))

    def resolve_object(self, obj, pairs):
        path = self.exe_override if (self.exe_override and obj == self.exe) else obj
        path = path.replace(" (deleted)", "")
        segs = load_segments(path)
        # The ELF address of a file offset: through the PT_LOAD that holds it (an executable one for
        # an address in an executable mapping: lld's segments can share a page of the file).
        vaddrs = []
        for _, off, x in pairs:
            v = off
            for p_off, p_vaddr, size, seg_x in sorted(segs, key=lambda seg: seg[3] != x):
                if p_off <= off < p_off + size:
                    v = off - p_off + p_vaddr
                    break
            vaddrs.append(v)
        funcs = [("??", "")] * len(pairs)
        if os.path.exists(path):
            out = subprocess.run(["addr2line", "-f", "-C", "-e", path],
                                 input="\n".join(f"{v:#x}" for v in vaddrs) + "\n",
                                 capture_output=True, text=True).stdout.splitlines()
            if len(out) == 2 * len(pairs):
                funcs = [(out[2 * i], out[2 * i + 1]) for i in range(len(pairs))]
        syms = None
        short = os.path.basename(obj)
        for (a, off, _), v, (fn, where) in zip(pairs, vaddrs, funcs):
            if where.startswith("??"):
                # No debug information: addr2line's name is the nearest exported symbol however
                # far, and a library's internal functions have none; nm's sizes tell.
                where, fn = "", "??"
            else:
                where = re.sub(r"(:\?)? \(discriminator \d+\)$|:\?$", "", where)
            if fn == "??":
                if syms is None:
                    syms = nm_symbols(path) if os.path.exists(path) else []
                k = bisect.bisect_right(syms, (v, float("inf"))) - 1
                inside = k >= 0 and v < syms[k][0] + max(syms[k][1], 1)
                fn = syms[k][2] if inside else f"{short}+{off:#x}"
            self.names[a] = (fn, where, obj)

    def func(self, a):
        """The function's full name (what --focus and --skip-idle match)."""
        return self.names[a][0]

    def label(self, a, any_offset=False):
        """The name to print; with any_offset an unnamed address in a library is "lib+?"."""
        fn = self.names[a][0] if self.full_names else short_name(self.names[a][0])
        return re.sub(r"\+0x[0-9a-f]+$", "+?", fn) if any_offset else fn


def short_name(fn):
    """A function's name without its template arguments (<…>), clone suffixes and, past 160
    characters, its tail."""
    fn = re.sub(r" \[clone [^\]]*\]", "", fn)
    if "operator<" not in fn and "operator>" not in fn and "operator->" not in fn:
        out, depth = [], 0
        for c in fn:
            if c == "<":
                if depth == 0:
                    out.append("<…>")
                depth += 1
            elif c == ">" and depth > 0:
                depth -= 1
            elif depth == 0:
                out.append(c)
        fn = "".join(out)
    return fn if len(fn) <= 160 else fn[:159] + "…"


def pct(n, total):
    return 100.0 * n / total if total else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--exe", help="the executable to symbolize with (default: the sampled one)")
    ap.add_argument("--focus", help="a wait site is the innermost frame whose function matches")
    ap.add_argument("--stacks", type=int, default=0, help="print the N most common stacks")
    ap.add_argument("--skip-idle", help="leave out samples with a function matching this")
    ap.add_argument("--threads", type=int, default=40, help="list at most this many threads")
    ap.add_argument("--full-names", action="store_true", help="keep template arguments in names")
    args = ap.parse_args()

    exe, names, maps, samples = read_samples(args.file)
    if exe is None and maps:
        exe = maps[0][4]
    sym = Symbolizer(maps, exe, args.exe)
    sym.full_names = args.full_names
    sym.resolve(samples)
    total = len(samples)

    per_thread = collections.Counter(tid for tid, _ in samples)
    print(f"  threads: {len(per_thread)}, {total} samples; the most sampled:")
    for tid, n in per_thread.most_common(args.threads):
        print(f"    {tid:>8} {names.get(tid, '?'):<16} {n:>8} samples {pct(n, total):5.1f}%")
    rest = per_thread.most_common()[args.threads:]
    if rest:
        print(f"    ... {len(rest)} more threads with {sum(n for _, n in rest)} samples "
              f"(at most {rest[0][1]} each)")

    if args.skip_idle:
        idle = re.compile(args.skip_idle)
        kept = [s for s in samples if not any(idle.search(sym.func(a)) for a in s[1])]
        print(f"  --skip-idle: {total - len(kept)} of {total} samples left out, {len(kept)} kept")
        samples = kept
    n = len(samples)

    focus = re.compile(args.focus) if args.focus else None
    sites = collections.Counter()
    for _, frames in samples:
        site = None
        if focus:
            site = next((a for a in frames if focus.search(sym.func(a))), None)
        if site is None:
            site = next((a for a in frames if sym.names[a][2] == exe), None)
        inner = sym.label(frames[0], any_offset=True) if frames else "(no frames)"
        if site is None:
            label = "(no frame in the executable)"
        else:
            where = sym.names[site][1]
            label = sym.label(site) + (f" [{os.path.basename(where)}]" if where else "")
        sites[(label, inner)] += 1
    print(f"  wait sites (top 30 of {len(sites)}; % of {n} samples): site <- innermost function")
    for (label, inner), c in sites.most_common(30):
        print(f"    {c:>8} {pct(c, n):5.1f}%  {label}  <-  {inner}")

    if args.stacks:
        stacks = collections.Counter(tuple(sym.label(a) for a in frames[:12])
                                     for _, frames in samples)
        print(f"  most common stacks (top {args.stacks} of {len(stacks)}; innermost first):")
        for stack, c in stacks.most_common(args.stacks):
            print(f"    {c:>8} {pct(c, n):5.1f}%")
            for fn in stack:
                print(f"               {fn}")


if __name__ == "__main__":
    main()
