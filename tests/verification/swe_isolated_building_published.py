"""Published models on the isolated building (issue 34, item 3): silt's errors against the
measured depths of Soares-Frazão & Zech (2007; EA benchmark test 6A) next to the same errors of
other models of this experiment, computed with the same rules (swe_isolated_building_test.py's
functions: RMSE over 0-30 s at the measured times with the model linear between its samples,
front arrival at ARRIVAL_DEPTH, peak over 0-30 s).

The other models: the three stabilised finite-element schemes of the Kratos example of this
experiment (KratosMultiphysics/Examples, shallow_water/use_cases/experiment, commit KRATOS_COMMIT):
residual viscosity (rv), flux correction (fc), gradient jump viscosity (gj), on a dry downstream
bed. Their errors are stored in PUBLISHED (scenes/data/isolated_building/published/), computed by
`tabulate` from their gauge series; the series are not stored here (that repository has no licence
file; see the README there).

  tabulate <dir> [--write]   errors of the Kratos series in <dir>/{rv,fc,gj}/gauge_{1..6}.dat;
                             compares them with PUBLISHED (fails if they differ); --write
                             stores them
  compare <silt> <work> [--dx 0.1 ...] [--scheme S ...] [--set k=v ...] [--reuse] [--check]
                             [--threads N]
                             runs silt with the scene's 2 cm layer (<work>/wet) and with a dry
                             downstream bed (<work>/dry, initial.level.value=0) and prints silt's
                             rows next to the published ones; --check asserts the bound below
                             (needs the first order at 0.1 m among the runs)
  ctest (label verification): compare <silt> <work> --check, two first-order runs at 0.1 m of
  ~0.5 s each."""
import argparse
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swe_isolated_building_test as ib  # noqa: E402  (the metrics, the runs, the measured data)

PUBLISHED = os.path.join(ib.ROOT, "scenes", "data", "isolated_building", "published",
                         "kratos_gauge_errors.csv")
KRATOS_COMMIT = "25ab09c575ae569a577e88aa4c159702ed2ab0fd"
KRATOS_SCHEMES = {"rv": "Kratos RV (residual viscosity)", "fc": "Kratos FC (flux correction)",
                  "gj": "Kratos GJ (gradient jump viscosity)"}
FIELDS = ["model", "gauge", "rmse_m", "arrival_s", "peak_m"]
DRY = "initial.level.value=0"

# Asserted by compare --check, for each first-order silt run at 0.1 m (the scene's 2 cm layer and
# the dry bed the Kratos models start from): the mean RMSE over G1-G5 at most the best (lowest) of
# the three published means, 0.0243 m (Kratos GJ). silt's are 0.0190 m (layer) and 0.0173 m (dry),
# 22% and 29% below it, measured 2026-12-05; the docs list which changes of the set-up fail it.


def read_kratos(path):
    """Time (s) and depth (m) per gauge of one Kratos scheme: gauge_<k>.dat, two '#' header rows,
    columns time HEIGHT VELOCITY_X VELOCITY_Y VELOCITY_Z, one row per time step."""
    t, h = None, {}
    for k, g in enumerate(ib.GAUGES):
        a = np.loadtxt(os.path.join(path, f"gauge_{k + 1}.dat"), comments="#", ndmin=2)
        if t is not None and not np.array_equal(a[:, 0], t):
            ib.fail(f"{path}/gauge_{k + 1}.dat: its times differ from gauge_1.dat's")
        t, h[g] = a[:, 0], a[:, 1]
    return t, h


def rows_of(model, res):
    return [{"model": model, "gauge": g, "rmse_m": f"{res[g]['rmse']:.5f}",
             "arrival_s": "" if res[g]["arr"] is None or g == "G6" else f"{res[g]['arr']:.3f}",
             "peak_m": "" if g == "G6" else f"{res[g]['peak']:.4f}"} for g in ib.GAUGES]


def read_published():
    """{model: {gauge: {"rmse", "arr", "peak"}}} from PUBLISHED (None where a cell is empty)."""
    out = {}
    with open(PUBLISHED) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            num = {k: (float(r[c]) if r[c] else None)
                   for k, c in (("rmse", "rmse_m"), ("arr", "arrival_s"), ("peak", "peak_m"))}
            out.setdefault(r["model"], {})[r["gauge"]] = num
    if sorted(out) != sorted(KRATOS_SCHEMES) or any(sorted(v) != ib.GAUGES for v in out.values()):
        ib.fail(f"{PUBLISHED}: expected the gauges {ib.GAUGES} of the models "
                f"{sorted(KRATOS_SCHEMES)}")
    return out


def tabulate(a):
    tm, hm = ib.read_measured()
    rows = []
    for s in KRATOS_SCHEMES:
        t, h = read_kratos(os.path.join(a.dir, s))
        res = ib.compare(tm, hm, t, h)
        ib.print_table(f"{s}: {KRATOS_SCHEMES[s]}, {len(t)} samples", res)
        mean = np.mean([res[g]["rmse"] for g in ib.GAUGES[:5]])
        shift, shifted = ib.best_shift(tm, hm, t, h)
        print(f"mean RMSE G1-G5 {mean:.4f} m; shifted {-shift:+.2f} s in time: {shifted:.4f} m")
        rows += rows_of(s, res)
    if a.write:
        with open(PUBLISHED, "w", newline="") as f:
            f.write(f"# Errors against building_gauges_h.txt of KratosMultiphysics/Examples "
                    f"{KRATOS_COMMIT}; see README.md\n")
            w = csv.DictWriter(f, FIELDS, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        print(f"\nwrote {PUBLISHED}")
        return
    stored = read_published()
    bad = [f"{r['model']} {r['gauge']} {k}: {r[c]} here, {stored[r['model']][r['gauge']][k]} stored"
           for r in rows for k, c in (("rmse", "rmse_m"), ("arr", "arrival_s"), ("peak", "peak_m"))
           if (float(r[c]) if r[c] else None) != stored[r["model"]][r["gauge"]][k]]
    if bad:
        ib.fail("\n  ".join([f"{len(bad)} values differ from {PUBLISHED}:"] + bad))
    print(f"\nthe same values as {PUBLISHED}")


def mean_rmse(res):
    return float(np.mean([res[g]["rmse"] for g in ib.GAUGES[:5]]))


def print_side_by_side(arr_m, peak_m, rows):
    """rows: (label, res); res as ib.compare's or read_published's (arrivals and peaks absolute)."""
    print("\nRMSE of the depth (m)")
    print("| model | " + " | ".join(ib.GAUGES) + " | mean G1-G5 |")
    print("|---" * (len(ib.GAUGES) + 2) + "|")
    for label, res in rows:
        print(f"| {label} | " + " | ".join(f"{res[g]['rmse']:.4f}" for g in ib.GAUGES)
              + f" | {mean_rmse(res):.4f} |")
    print("\nArrival (s) and peak (m), model minus measured")
    g5 = ib.GAUGES[:5]
    print("| model | " + " | ".join(g5) + " | peak " + " | ".join(g5) + " |")
    print("|---" * 11 + "|")
    print("| measured | " + " | ".join(f"{arr_m[g]:.2f}" for g in g5) + " | "
          + " | ".join(f"{peak_m[g]:.3f}" for g in g5) + " |")
    for label, res in rows:
        arr = [ib.fmt(None if res[g]["arr"] is None else res[g]["arr"] - arr_m[g], "+.2f")
               for g in g5]
        print(f"| {label} | " + " | ".join(arr) + " | "
              + " | ".join(f"{res[g]['peak'] - peak_m[g]:+.3f}" for g in g5) + " |")


def compare(a):
    tm, hm = ib.read_measured()
    arr_m = {g: ib.arrival(tm, hm[g]) for g in ib.GAUGES}
    peak_m = {g: float(hm[g].max()) for g in ib.GAUGES}
    pub = read_published()
    best = min(mean_rmse(pub[s]) for s in pub)
    rows, bad, checked = [], [], 0
    for bed, sets in (("layer", a.sets), ("dry", a.sets + [DRY])):
        for scheme in a.scheme:
            for dx in a.dx:
                work = os.path.join(a.work, "dry" if bed == "dry" else "wet")
                name, out, _, _ = ib.run_silt(a.silt, work, dx, scheme, sets, a.threads, a.reuse,
                                              "cpu")
                t, h = ib.read_model(out)
                res = ib.compare(tm, hm, t, h)
                rows.append((f"silt {scheme} {dx:g} m, {bed}", res))
                if a.check and scheme == "first_order" and abs(dx - 0.1) < 1e-12:
                    checked += 1
                    if not mean_rmse(res) <= best:
                        bad.append(f"{name} ({bed} bed): mean RMSE G1-G5 {mean_rmse(res):.4f} m "
                                   f"above the best published model's {best:.4f} m")
    if a.check and checked != 2:
        bad.append("--check needs the first order at 0.1 m (--dx 0.1, --scheme first_order)")
    rows += [(KRATOS_SCHEMES[s] + ", dry", pub[s]) for s in KRATOS_SCHEMES]
    print_side_by_side(arr_m, peak_m, rows)
    if bad:
        ib.fail("\n  ".join([f"{len(bad)} bounds not met:"] + bad))
    if a.check:
        print(f"\nall bounds met (mean RMSE G1-G5 at most {best:.4f} m, the best published)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tabulate", help="the errors of the Kratos gauge series")
    t.add_argument("dir", help="a folder with rv/, fc/, gj/ (data/results of the Kratos example)")
    t.add_argument("--write", action="store_true", help=f"store them in {PUBLISHED}")
    c = sub.add_parser("compare", help="silt's runs next to the published models")
    c.add_argument("silt")
    c.add_argument("work")
    c.add_argument("--dx", type=float, nargs="+", default=[0.1])
    c.add_argument("--scheme", nargs="+", default=["first_order"])
    c.add_argument("--set", action="append", default=[], dest="sets",
                   help="silt run's --set for both runs (the dry one adds " + DRY + ")")
    c.add_argument("--threads", type=int, default=2)
    c.add_argument("--reuse", action="store_true")
    c.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.cmd == "tabulate":
        tabulate(a)
    else:
        compare(a)


if __name__ == "__main__":
    main()
