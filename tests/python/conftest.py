# Shared by the Python tests (scripts/test.sh runs them with the package built by pip, on the CPU
# backend; the gpu-marked ones need the CUDA backend, a GPU and PyTorch and are skipped otherwise).
import copy
import os
import pathlib
import signal

import pytest

import silt

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENES = ROOT / "scenes"

# A 2D sand column (scenes/mpm_sand_column_2d.json at dx = 1 cm: 800 particles), a second or so
# of CPU time per 0.1 s simulated.
SAND_COLUMN = {
    "solver": "mpm",
    "name": "sand_column",
    "domain": {"dimensions": 2, "min": [0, 0], "max": [0.6, 0.25], "dx": 0.01,
               "walls": {"x-": "slip", "x+": "slip", "y+": "slip",
                         "y-": {"type": "friction", "friction": 0.5}}},
    "materials": [{"name": "sand", "kind": "sand", "density": 1600, "youngs_modulus": 3.5e5,
                   "poisson_ratio": 0.3, "friction_angle": 30}],
    "sources": [{"name": "column", "material": "sand", "shape": "box", "min": [0, 0],
                 "max": [0.1, 0.2], "particles_per_cell": 4, "seed": 1}],
    "physics": {"gravity": [0, -9.81], "damping": 0.1},
    "run": {"fps": 30, "end_time": 1.0},
    "outputs": {"formats": ["ply"], "png": False},
}

# The partial dam break of scenes/dam_break.json on 4 m cells (50 x 50).
DAM_BREAK_SETS = {"grid.nx": 50, "grid.ny": 50, "grid.dx": 4.0, "run.end_time": 4.8}


@pytest.fixture
def sand_dict():
    return copy.deepcopy(SAND_COLUMN)


@pytest.fixture
def sand_scene(sand_dict):
    return silt.Scene.from_dict(sand_dict, name="sand_column")


@pytest.fixture
def dam_scene():
    return silt.Scene.from_file(SCENES / "dam_break.json").update(DAM_BREAK_SETS)


def cli():
    """The silt command of the build (scripts/test.sh sets SILT_CLI), or None."""
    p = os.environ.get("SILT_CLI", "")
    return p if p and os.access(p, os.X_OK) else None


def has_cuda():
    return silt.cuda_compiled() and silt.cuda_device_count() > 0


@pytest.fixture
def python_sigint():
    """SIGINT raises KeyboardInterrupt, as in a notebook or a terminal, also when pytest was started
    with SIGINT ignored (a background job of a non-interactive shell inherits it ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
