#!/usr/bin/env python3
"""Falling sand in Taichi: the peer of `mpm_bench --case sand` (bench/mpm_bench.cpp, case [b]).

The same problem: MLS-MPM (Hu et al. 2018) with APIC, quadratic B-splines, dx = 1/256 m in the
unit box, dt = 1e-4 s, gravity 9.81 m/s^2; a cube of sand of ~55K particles at 8 per cell (a
2 x 2 x 2 lattice; side round(cbrt(N / 8)) cells) at rest, its lower face at y = 0.3 m, centred in
x and z; Drucker-Prager on the Hencky strain (Klar et al. 2016) with StVK-Hencky elasticity and
the volume correction (Tampubolon et al. 2017): E = 3.5e5 Pa, nu = 0.3, rho = 1600 kg/m^3,
friction angle 30 deg. The grid is sparse as in taichi_elements (pointer - pointer - dense 4^3
leaves, deactivated every step), so neither code sweeps the whole 256^3 box.

Prints ms per step and particle-steps per second over the timed steps after a warm-up (JIT
compilation and first activation). Asserts nothing.

    python3 -m venv /work/peers/venv-taichi && /work/peers/venv-taichi/bin/pip install taichi
    /work/peers/venv-taichi/bin/python bench/peers/taichi_sand.py --threads 2
"""
import argparse
import math
import time

import numpy as np
import taichi as ti

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--particles", type=float, default=55e3, help="target particle count")
ap.add_argument("--threads", type=int, default=2, help="CPU threads (cpu_max_num_threads)")
ap.add_argument("--steps", type=int, default=20, help="timed steps")
ap.add_argument("--warmup", type=int, default=5, help="untimed steps first (compilation)")
ap.add_argument("--arch", default="cpu", choices=["cpu", "cuda"])
args = ap.parse_args()

ti.init(arch=ti.cpu if args.arch == "cpu" else ti.cuda, cpu_max_num_threads=args.threads,
        default_fp=ti.f32, random_seed=0)

n_grid = 256
dx = 1.0 / n_grid
inv_dx = float(n_grid)
dt = 1e-4
E, nu, rho = 3.5e5, 0.3, 1600.0
mu_0 = E / (2 * (1 + nu))
lambda_0 = E * nu / ((1 + nu) * (1 - 2 * nu))
sin_phi = math.sin(math.radians(30.0))
alpha = math.sqrt(2.0 / 3.0) * 2 * sin_phi / (3 - sin_phi)
ppc_side = 2
p_vol = (dx / ppc_side) ** 3
p_mass = p_vol * rho
gravity = -9.81
bound = 3

side_cells = round((args.particles / 8.0) ** (1.0 / 3.0))
n_side = side_cells * ppc_side
n = n_side ** 3

x = ti.Vector.field(3, ti.f32, n)
v = ti.Vector.field(3, ti.f32, n)
C = ti.Matrix.field(3, 3, ti.f32, n)
F = ti.Matrix.field(3, 3, ti.f32, n)
vc = ti.field(ti.f32, n)  # volume-correction state (log J gained while separating)

grid_v = ti.Vector.field(3, ti.f32)
grid_m = ti.field(ti.f32)
leaf = 4
grid_block = 128
grid = ti.root.pointer(ti.ijk, n_grid // grid_block)
block = grid.pointer(ti.ijk, grid_block // leaf)
block.dense(ti.ijk, leaf).place(grid_v, grid_m)


@ti.func
def sand_projection(sig, p):
    # Klar et al. 2016 return mapping on eps = log|sigma|, with the volume correction.
    eps = ti.Vector([ti.log(ti.max(ti.abs(sig[i, i]), 1e-4)) for i in ti.static(range(3))])
    tr = eps.sum() + vc[p]
    eps_hat = eps - tr / 3.0
    eps_hat_norm = eps_hat.norm() + 1e-20
    new_sig = ti.Vector([1.0, 1.0, 1.0])
    if tr >= 0.0:
        vc[p] = tr
    else:
        vc[p] = 0.0
        dgamma = eps_hat_norm + (3 * lambda_0 + 2 * mu_0) / (2 * mu_0) * tr * alpha
        for i in ti.static(range(3)):
            new_sig[i] = ti.exp(eps[i] - ti.max(0.0, dgamma) / eps_hat_norm * eps_hat[i])
    return new_sig


@ti.kernel
def p2g():
    for p in x:
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - base.cast(float)
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        F[p] = (ti.Matrix.identity(float, 3) + dt * C[p]) @ F[p]
        U, sig, V = ti.svd(F[p])
        s = sand_projection(sig, p)
        F[p] = U @ ti.Matrix([[s[0], 0, 0], [0, s[1], 0], [0, 0, s[2]]]) @ V.transpose()
        # StVK-Hencky Kirchhoff stress U (2 mu eps + lambda tr(eps)) U^T.
        le = ti.Vector([ti.log(s[i]) for i in ti.static(range(3))])
        tau_p = 2 * mu_0 * le + lambda_0 * le.sum()
        stress = U @ ti.Matrix([[tau_p[0], 0, 0], [0, tau_p[1], 0], [0, 0, tau_p[2]]]) @ U.transpose()
        affine = -dt * p_vol * 4 * inv_dx * inv_dx * stress + p_mass * C[p]
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            offset = ti.Vector([i, j, k])
            dpos = (offset.cast(float) - fx) * dx
            weight = w[i][0] * w[j][1] * w[k][2]
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass


@ti.kernel
def grid_update():
    for I in ti.grouped(grid_m):
        if grid_m[I] > 0:
            gv = grid_v[I] / grid_m[I]
            gv[1] += dt * gravity
            for d in ti.static(range(3)):
                if I[d] < bound and gv[d] < 0:
                    gv[d] = 0
                if I[d] > n_grid - bound and gv[d] > 0:
                    gv[d] = 0
            grid_v[I] = gv


@ti.kernel
def g2p():
    for p in x:
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - base.cast(float)
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector.zero(float, 3)
        new_C = ti.Matrix.zero(float, 3, 3)
        for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
            dpos = ti.Vector([i, j, k]).cast(float) - fx
            g_v = grid_v[base + ti.Vector([i, j, k])]
            weight = w[i][0] * w[j][1] * w[k][2]
            new_v += weight * g_v
            new_C += 4 * inv_dx * weight * g_v.outer_product(dpos)
        v[p] = new_v
        C[p] = new_C
        x[p] += dt * new_v


def step():
    grid.deactivate_all()
    p2g()
    grid_update()
    g2p()


def init():
    side = side_cells * dx
    lo = np.array([0.5 - side / 2, 0.3, 0.5 - side / 2])
    h = dx / ppc_side
    idx = np.arange(n_side)
    gx, gy, gz = np.meshgrid(idx, idx, idx, indexing="ij")
    lattice = np.stack([gx.ravel(), gy.ravel(), gz.ravel()], axis=1)
    x.from_numpy((lo + (lattice + 0.5) * h).astype(np.float32))
    v.from_numpy(np.zeros((n, 3), np.float32))
    C.from_numpy(np.zeros((n, 3, 3), np.float32))
    F.from_numpy(np.tile(np.eye(3, dtype=np.float32), (n, 1, 1)))
    vc.from_numpy(np.zeros(n, np.float32))


init()
for _ in range(args.warmup):
    step()
ti.sync()
t0 = time.perf_counter()
for _ in range(args.steps):
    step()
ti.sync()
ms = 1e3 * (time.perf_counter() - t0) / args.steps
version = ".".join(map(str, ti.__version__))
print(f"taichi {version} {args.arch} ({args.threads} threads): falling sand {n} particles "
      f"(Drucker-Prager, dx 1/256 m, dt 1e-4 s): {n / (1e-3 * ms):.3g} particle-steps/s, "
      f"{ms:.3f} ms/step over {args.steps} steps")
