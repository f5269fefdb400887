"""silt.Ensemble on the CUDA backend (issue 37: "the ensemble runs from the CLI and Python on
both backends"): Ensemble(scene, ens).run(out, backend="cuda") writes what ``silt run scene
--ensemble ens.json --backend cuda`` writes, for a shallow-water ensemble in float64 and an MPM
sweep in the deterministic mode. Files are compared byte for byte, except the tables of sums
the GPU adds with float atomics, whose last bits vary from run to run even in one process
(docs/ensembles.md, "On GPUs"): those are compared number by number within 1e-12 of each row's
largest value, as tests/gpu/ensemble_batch_test.py does. Run on the GPU machine
(bench/device_run.sh python); skipped where there is no CUDA backend, GPU or silt executable."""
import json
import math
import os

import pytest

import silt
from conftest import SCENES, has_cuda
from test_ensemble import (MPM_ENSEMBLE, MPM_SETS, SWE_ENSEMBLE, SWE_SETS, _run_cli,
                           _same_outputs)

CLI = os.environ.get("SILT_CLI", "")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not has_cuda(), reason="no CUDA backend or GPU"),
    pytest.mark.skipif(not CLI or not os.path.exists(CLI),
                       reason="SILT_CLI (the silt executable) is not set"),
]

# The tables that hold the GPU's atomic sums: the shallow-water inflow volume and balance, MPM's
# kinetic energy.
ATOMIC_SUMS = {"mass_balance.csv", "hydrograph.csv", "measures.csv", "measures_stats.csv"}
REL = 1e-12


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def _close_rows(a, b):
    """Two tables' rows equal, numbers within REL of their row's largest magnitude."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        scale = max([abs(v) for v in map(_number, x + y) if v is not None and math.isfinite(v)]
                    or [0.0])
        for u, v in zip(x, y):
            fu, fv = _number(u), _number(v)
            if fu is None or fv is None or math.isnan(fu) or math.isnan(fv):
                if u != v:
                    return False
            elif fu != fv and abs(fu - fv) > REL * scale:
                return False
    return True


@pytest.mark.parametrize("kind", ["mpm", "swe"])
def test_ensemble_on_cuda_equals_cli(tmp_path, kind):
    scene_file = SCENES / ("mpm_column_sweep_2d.json" if kind == "mpm" else "rain_plane.json")
    sets, ens = (MPM_SETS, MPM_ENSEMBLE) if kind == "mpm" else (SWE_SETS, SWE_ENSEMBLE)
    if kind == "mpm":  # the same particles' sums in the same order, run to run
        sets = dict(sets, **{"performance.deterministic": True})
    ens_path = tmp_path / "ens.json"
    ens_path.write_text(json.dumps(ens))
    scene = silt.Scene.from_file(scene_file)
    scene.update(sets)
    r = silt.Ensemble(scene, ens_path).run(tmp_path / "py", backend="cuda")
    assert r["done"] == r["members"] == len(ens.get("members", [])) + 2
    _run_cli(scene_file, sets, ens_path, tmp_path / "cli", backend="cuda")
    files = _same_outputs(tmp_path / "py", tmp_path / "cli",
                          {name: _close_rows for name in ATOMIC_SUMS})
    assert "measures.csv" in files
    resolved = json.loads((tmp_path / "py" / "resolved_ensemble.json").read_text())
    assert "cuda" in json.dumps(resolved).lower()
