#!/usr/bin/python3
"""The tilted V-catchment rainfall-runoff benchmark (issue 34; scenes/v_catchment.json).

Two planes of 800 m x 1000 m falling 0.05 toward a 20 m channel (and 0.02 along it), the channel
falling 0.02 to its outlet; Manning 0.015 on the planes, 0.15 in the channel; 10.8 mm/h (3e-6 m/s)
of rain for 90 min, then 90 min of recession (Di Giammarco, Todini & Lamberti 1996, J. Hydrology
175; Panday & Huyakorn 2004; Kollet & Maxwell 2006). `silt run` on 20 m cells, float64, first
order and muscl; hydrograph.csv gives the outlet's discharge and the west plane's discharge into
the channel (a cross section at x = 800 m). Checks, each scheme:

1. equilibrium: the outlet discharge over 80..90 min equals rain x area, 3e-6 x 1.62e6 = 4.86 m^3/s
   (and MODFLOW 6's published 4.8595 at 5400 s, its olf-swr-vcatch test on the same 20 m grid);
2. mass balance: rain in = out + stored (mass_balance.csv), rain in = 3e-6 m/s x area x 90 min;
3. rising limbs: the west plane's discharge against the kinematic wave's analytic
   Q/Qe = (t/tc)^(5/3), tc = (L n / sqrt(S) / i^(2/3))^(3/5) (times to 50% and 90%); the outlet's
   against the kinematic wave of the whole V (analytic planes feeding a kinematic channel, solved
   below on 5 m cells);
4. first order and muscl: their outlet hydrographs within a stated difference of each other.
A negative control: the planes' Manning doubled must move the outlet's rising limb out of the
tolerance of check 3 (so check 3 can fail). Measured 2026-12-05: docs/verification-swe.md,
"The V-catchment".

Usage: swe_v_catchment_test.py <silt executable> <scratch dir>
"""
import os
import shutil
import subprocess
import sys

import numpy as np

SILT, SCRATCH = sys.argv[1], sys.argv[2]
SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenes",
                     "v_catchment.json")
RAIN, T_RAIN, AREA = 3e-6, 5400.0, 1620.0 * 1000.0  # m/s, s, m^2
Q_EQ = RAIN * AREA  # 4.86 m^3/s
Q_PLANE = RAIN * 800.0 * 1000.0  # 2.4 m^3/s from each plane at equilibrium
MF6_5400 = 4.859497719  # MODFLOW 6 olf-swr-vcatch (autotest), outflow at 5400 s
L, N_P, S_X, S_Y = 800.0, 0.015, 0.05, 0.02
# The planes' water runs down the gradient (0.05, 0.02): the discharge toward the channel per unit
# width is sqrt(|S|) h^(5/3) / n x S_x / |S|, i.e. an effective sqrt(S) of S_x / |S|^(1/2).
SQRT_S = S_X / np.hypot(S_X, S_Y) ** 0.5
TC = (L * N_P / SQRT_S / RAIN ** (2.0 / 3.0)) ** 0.6  # s, 1807 (1767 with sqrt(0.05))
# Tolerances (first order, muscl), justified in docs/verification-swe.md, "The V-catchment".
EQ_TOL = {"first_order": 0.02, "muscl": 0.005}  # equilibrium discharge, relative
PLANE_TOL = {"first_order": None, "muscl": 0.05}  # plane t50/t90 against the analytic, relative
OUTLET_TOL = {"first_order": 0.15, "muscl": 0.12}  # outlet t50/t90 against the kinematic V
# The first order's planes lag (a thin sheet, ~5 mm, over 1 m bed steps between 20 m cells: the
# hydrostatic reconstruction's error, of first order in dx): measured at 20 m, the outlet
# discharges differ by up to 31% of Q_EQ on the rising limb, the outflow by 180 min by 3.6%.
SCHEMES_TOL = 0.40  # max |Q_first - Q_muscl| / Q_EQ over the run
VOLUME_TOL = 0.05  # outflow volume by 180 min, first order against muscl, relative
LAG_SHRINK = 0.75  # the first order's plane lag (t50 - analytic) at 10 m over that at 20 m (0.60)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(name, *sets):
    """hydrograph.csv and mass_balance.csv of the scene with `sets` (--set overrides)."""
    out = os.path.join(SCRATCH, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [SILT, "run", SCENE, "--backend", "cpu", "--overwrite", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    log = subprocess.run(cmd, capture_output=True, text=True)
    if log.returncode != 0:
        sys.exit(f"FAIL {' '.join(cmd)}:\n{log.stdout}{log.stderr}")
    h = np.genfromtxt(os.path.join(out, "hydrograph.csv"), delimiter=",", names=True)
    m = np.genfromtxt(os.path.join(out, "mass_balance.csv"), delimiter=",", names=True)
    return h, m


def rise_time(t, q, level):
    """The first time (s) q reaches `level`, linear between samples."""
    k = int(np.argmax(q >= level))
    if q[k] < level or k == 0:
        return float("nan")
    return float(t[k - 1] + (level - q[k - 1]) / (q[k] - q[k - 1]) * (t[k] - t[k - 1]))


def kinematic_v(t_end=10800.0, dt=1.0, dx=5.0, n_p=N_P):
    """Outlet discharge (m^3/s) of the V under the kinematic wave: each plane (q = SQRT_S h^(5/3) /
    n) feeds a wide channel (q = sqrt(0.02) h^(5/3) / 0.15 per m of its 20 m), both by first-order
    upwind volumes on dx cells (Courant number < 0.2)."""
    a_p, a_c, w, m = SQRT_S / n_p, np.sqrt(0.02) / 0.15, 20.0, 5.0 / 3.0
    hp, hc = np.zeros(int(L / dx)), np.zeros(int(1000.0 / dx))
    ts = np.arange(0.0, t_end + dt / 2, dt)
    q = np.zeros_like(ts)
    for k in range(1, len(ts)):
        r = RAIN if ts[k] - 0.5 * dt < T_RAIN else 0.0
        hp += dt * (r - np.diff(a_p * hp ** m, prepend=0.0) / dx)
        lateral = 2.0 * a_p * hp[-1] ** m + r * w  # m^2/s into the channel per m of its length
        hc += dt * (lateral - np.diff(a_c * hc ** m * w, prepend=0.0) / dx) / w
        q[k] = a_c * hc[-1] ** m * w
    return ts, q


def main():
    os.makedirs(SCRATCH, exist_ok=True)
    tk, qk = kinematic_v()
    kin = {f: rise_time(tk, qk, f * Q_EQ) for f in (0.5, 0.9)}
    print(f"kinematic V: outlet 50% at {kin[0.5] / 60:.1f} min, 90% at {kin[0.9] / 60:.1f} min; "
          f"planes tc {TC / 60:.1f} min")
    res, plane_lag = {}, 0.0
    for scheme in ("first_order", "muscl"):
        h, m = run(scheme, f"physics.scheme={scheme}")
        t, q_out, q_plane = h["time_s"], -h["outlet_q_m3_s"], h["west_plane_q_m3_s"]
        res[scheme] = (t, q_out)
        # 1. Equilibrium (hydrograph.csv's q is the mean over the minute before each time).
        late = (t > 4800.0) & (t <= T_RAIN)
        q_eq = float(np.mean(q_out[late]))
        q_5400 = float(q_out[t == T_RAIN][0])
        check(abs(q_eq / Q_EQ - 1) < EQ_TOL[scheme],
              f"{scheme}: outlet discharge over 80..90 min {q_eq:.4f} m^3/s within "
              f"{EQ_TOL[scheme]:.1%} of rain x area {Q_EQ:.2f}")
        check(abs(q_5400 / MF6_5400 - 1) < EQ_TOL[scheme],
              f"{scheme}: outlet discharge at 90 min {q_5400:.4f} m^3/s within "
              f"{EQ_TOL[scheme]:.1%} of MODFLOW 6's {MF6_5400:.4f}")
        # 2. Mass balance.
        rain, stored, net = m["rain_m3"][-1], m["stored_m3"][-1], m["boundary_net_m3"][-1]
        check(abs(rain - (stored - net)) < 1e-9 * rain,
              f"{scheme}: rain in {rain:.3f} m^3 = out {-net:.3f} + stored {stored:.3f} "
              f"(residual {rain - stored + net:.2g} m^3)")
        check(abs(rain / (RAIN * AREA * T_RAIN) - 1) < 1e-4,
              f"{scheme}: rain in {rain:.2f} m^3 = 3e-6 m/s x area x 90 min "
              f"{RAIN * AREA * T_RAIN:.1f} m^3 (the 1 s ramp to 0 adds 2.4 m^3)")
        # 3. Rising limbs. The plane against the analytic.
        q_pl = float(np.mean(q_plane[late]))
        check(abs(q_pl / Q_PLANE - 1) < EQ_TOL[scheme],
              f"{scheme}: west plane into the channel over 80..90 min {q_pl:.4f} m^3/s within "
              f"{EQ_TOL[scheme]:.1%} of {Q_PLANE:.2f} (cross section: the update's fluxes)")
        for f in (0.5, 0.9):
            tp = rise_time(t, q_plane, f * Q_PLANE)
            ta = TC * f ** 0.6
            tol = PLANE_TOL[scheme]
            if f == 0.5 and scheme == "first_order":
                plane_lag = tp - ta
            if tol is None:  # reported: the first order's thin sheet on 1 m bed steps lags
                print(f"info {scheme}: west plane {f:.0%} at {tp / 60:.1f} min, analytic "
                      f"{ta / 60:.1f} min (x {tp / ta:.2f})")
            else:
                check(abs(tp / ta - 1) < tol, f"{scheme}: west plane {f:.0%} at {tp / 60:.1f} min, "
                      f"analytic {ta / 60:.1f} min, within {tol:.0%}")
        for f in (0.5, 0.9):
            to = rise_time(t, q_out, f * Q_EQ)
            check(abs(to / kin[f] - 1) < OUTLET_TOL[scheme],
                  f"{scheme}: outlet {f:.0%} at {to / 60:.1f} min, kinematic V "
                  f"{kin[f] / 60:.1f} min, within {OUTLET_TOL[scheme]:.0%}")
    # 4. The schemes against each other.
    (t1, q1), (t2, q2) = res["first_order"], res["muscl"]
    diff = float(np.max(np.abs(q1 - q2))) / Q_EQ
    check(diff < SCHEMES_TOL, f"first order and muscl outlet discharges within "
          f"{SCHEMES_TOL:.0%} of {Q_EQ:.2f} m^3/s at every minute (largest {diff:.1%})")
    v1, v2 = float(np.sum(q1[1:] * np.diff(t1))), float(np.sum(q2[1:] * np.diff(t2)))
    check(abs(v1 / v2 - 1) < VOLUME_TOL, f"outflow by 180 min: first order {v1:.0f} m^3, muscl "
          f"{v2:.0f} m^3, within {VOLUME_TOL:.0%}")
    # Negative control: the planes' Manning doubled moves the rise out of check 3's tolerance.
    h, _ = run("first_order_n2", "manning.value=0.03")
    t50 = rise_time(h["time_s"], -h["outlet_q_m3_s"], 0.5 * Q_EQ)
    check(abs(t50 / kin[0.5] - 1) > OUTLET_TOL["first_order"],
          f"negative control: planes' n doubled, first order outlet 50% at {t50 / 60:.1f} min, "
          f"outside {OUTLET_TOL['first_order']:.0%} of {kin[0.5] / 60:.1f} min")
    # The first order's lag is a discretization error: it shrinks on 10 m cells.
    h, _ = run("first_order_10m", "grid.dx=10", "grid.nx=162", "grid.ny=100")
    lag10 = rise_time(h["time_s"], h["west_plane_q_m3_s"], 0.5 * Q_PLANE) - TC * 0.5 ** 0.6
    check(lag10 < LAG_SHRINK * plane_lag, f"first order: the west plane's 50% lags the analytic by "
          f"{plane_lag / 60:.1f} min at 20 m, {lag10 / 60:.1f} min at 10 m (< {LAG_SHRINK} x)")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


main()
