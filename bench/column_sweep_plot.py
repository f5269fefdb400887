#!/usr/bin/python3
"""The runout of an MPM column-collapse sweep against the collapse laws (docs/ensembles.md,
"MPM sweeps"; issue 37): reads measures.csv of

    silt run scenes/mpm_column_sweep_2d.json --ensemble scenes/column_sweep_ensemble.json --out OUT

(or the GPU sweep, scenes/column_sweep_gpu_ensemble.json) and plots each member's relative runout
(L_inf - L0) / L0 (measures.csv's relative_runout: the front's travel over the initial extent
along x) against the column's aspect ratio a = H / L0 (from the member's sources[0].max = [L0, H]),
one series per friction angle, with the laws as the brief for issue 37 gives them for Lube et al.
(2005) and Lajeunesse et al. (2005): 1.2 a for a < 1.8 and 1.9 a^(2/3) beyond.

Usage: column_sweep_plot.py OUT [PNG]  (default PNG: docs/images/column_sweep.png)."""
import csv
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

out = sys.argv[1]
png = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "docs", "images", "column_sweep.png")
rows = list(csv.DictReader(open(os.path.join(out, "measures.csv"))))
series = {}
for r in rows:
    phi = float(re.search(r"friction_angle=([0-9.e+-]+)", r["settings"]).group(1))
    box = json.loads(re.search(r"sources\[0\]\.max=(\[[^\]]*\])", r["settings"]).group(1))
    a = box[1] / box[0]
    series.setdefault(phi, []).append((a, float(r["relative_runout_1"])))

fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
a = np.linspace(0.3, 4.3, 200)
ax.plot(a[a < 1.8], 1.2 * a[a < 1.8], "k-", lw=1.5, label="1.2 a  (a < 1.8)")
ax.plot(a[a >= 1.8], 1.9 * a[a >= 1.8] ** (2 / 3), "k--", lw=1.5, label="1.9 a^(2/3)  (a > 1.8)")
colors = plt.cm.viridis(np.linspace(0, 0.9, max(1, len(series))))
for (phi, pts), c in zip(sorted(series.items()), colors):
    pts.sort()
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=c, ms=5,
            label=f"silt MPM, friction angle {phi:g} deg")
ax.set_xlabel("aspect ratio a = H / L0")
ax.set_ylabel("relative runout (L_inf - L0) / L0")
ax.set_title(f"2D sand column collapse: {len(rows)} members of one ensemble")
ax.grid(alpha=0.3)
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig(png)
print(png)
for phi, pts in sorted(series.items()):
    print(f"friction {phi:g}: " + ", ".join(f"a={p[0]:.3g}: {p[1]:.3f}" for p in sorted(pts)))
