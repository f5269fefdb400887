"""NumPy arrays in scenes: a 2D array where a scene takes a raster (the bed, an initial field,
Manning n, a rain frame, a soil parameter) is checked here (shape, dtype, finite values), kept by
reference (converted to C-contiguous float64 only when it is not already) and named in the scene
text as ``"array:<key>@<digest>"`` (BLAKE2b of its values: a checkpoint's scene hash covers
them); the loader (io/scene_arrays.hpp) reads it as a raster on the grid with
the checks and messages of a raster file. One copy is made, into the solver's scene."""

from __future__ import annotations

import hashlib
import re
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _silt

PREFIX = "array:"

# Keys of a shallow-water scene that take a raster (docs/scenes-swe.md), with "{"raster": ...}"
# spelled out or not.
_SWE_RASTER_KEYS = re.compile(
    r"^(bed|manning|initial\.(depth|level|u|v|concentration)|rainfall\.frames\[\d+\]|"
    r"infiltration\.(conductivity_mm_h|suction_m|porosity|initial_moisture|initial_rate_mm_h|"
    r"final_rate_mm_h|decay_per_h))(\.raster)?$")

# 2^53: integers above it are not all exactly float64.
_EXACT_INT = 2 ** 53


# Keys of an MPM scene that take an (n, 3) array: a points source's particles.
_MPM_ROW_KEYS = re.compile(r"^sources\[\d+\]\.(position|velocity)$")


def is_raster_key(solver: str, path: str) -> bool:
    """Whether a scene of `solver` takes a raster at `path` ("bed", "rainfall.frames[0].raster")."""
    return solver == "swe" and _SWE_RASTER_KEYS.match(path) is not None


def is_array_key(solver: str, path: str) -> bool:
    """Whether a scene of `solver` takes an array at `path`: a raster, or (MPM) the (n, 3) rows of a
    points source ("sources[0].position")."""
    return is_raster_key(solver, path) or (solver == "mpm" and _MPM_ROW_KEYS.match(path) is not None)


def row_array(key: str, a: Any) -> np.ndarray:
    """`a` as a C-contiguous float64 (n, 3) array for the scene key `key` (a row per particle:
    x, y, z), or TypeError / ValueError naming the key: the checks of :func:`grid_array`, the first
    row that is not finite."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"'{key}': must be an (n, 3) NumPy array, not {type(a).__name__}")
    if a.dtype.kind not in "fiu":
        raise TypeError(f"'{key}': must be an array of real numbers (float or int), not {a.dtype}")
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"'{key}': expected shape (n, 3) (a row x, y, z per particle), got {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"'{key}': is empty (shape {a.shape})")
    out = np.ascontiguousarray(a, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if bad.size:
        r = int(bad[0])
        raise ValueError(f"'{key}': row {r} {tuple(float(x) for x in out[r])} is not finite "
                         f"({bad.size} rows are not)")
    return out


def grid_array(key: str, a: Any, shape: Optional[Tuple[int, int]]) -> np.ndarray:
    """`a` as a C-contiguous float64 (ny, nx) array for the scene key `key`, or TypeError /
    ValueError naming the key: not an array of real numbers, a dtype that does not convert exactly,
    the wrong shape (expected `shape`, None: any 2D), empty, a value that is not finite."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"'{key}': must be a 2D NumPy array, not {type(a).__name__}")
    kind = a.dtype.kind
    if kind not in "fiu":
        raise TypeError(f"'{key}': must be an array of real numbers (float or int), not {a.dtype}")
    if a.ndim != 2:
        want = f"(ny, nx) = {shape}" if shape else "(ny, nx)"
        raise ValueError(f"'{key}': must be a 2D array of shape {want}, got {a.ndim} dimensions, shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"'{key}': is empty (shape {a.shape})")
    if shape is not None and tuple(a.shape) != tuple(shape):
        raise ValueError(f"'{key}': expected shape (ny, nx) = {tuple(shape)} of the grid, got {tuple(a.shape)} "
                         "(row j is y, column i is x; row 0 is the southern edge)")
    if kind in "iu":
        big = np.flatnonzero(np.abs(a.astype(np.float64, copy=False).ravel()) > _EXACT_INT)
        if big.size:
            j, i = np.unravel_index(int(big[0]), a.shape)
            raise TypeError(f"'{key}': the {a.dtype} value {a[j, i]} at [j, i] = [{j}, {i}] is not exact "
                            "as float64; give floats")
    out = np.ascontiguousarray(a, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(out.ravel()))
    if bad.size:
        j, i = np.unravel_index(int(bad[0]), out.shape)
        raise ValueError(f"'{key}': the value at [j, i] = [{j}, {i}] is {out[j, i]}; arrays must be finite "
                         f"({bad.size} of {out.size} values are not)")
    return out


def digest(a: np.ndarray) -> str:
    """16 hex digits of BLAKE2b over the array's float64 bytes: part of the array's name in the
    scene, so that the resolved scene and the hash a checkpoint is tied to tell arrays apart."""
    return hashlib.blake2b(memoryview(a).cast("B"), digest_size=8).hexdigest()


def _grid_shape(d: Dict[str, Any]) -> Optional[Tuple[int, int]]:
    g = d.get("grid")
    if not isinstance(g, dict):
        return None
    nx, ny = g.get("nx"), g.get("ny")
    if isinstance(nx, (int, np.integer)) and isinstance(ny, (int, np.integer)):
        return int(ny), int(nx)
    return None


def replace(solver: str, path: str, value: Any, shape: Any, arrays: Dict[str, np.ndarray]) -> Any:
    """`value` (set at the scene key `path`) with each array at a raster key below it replaced by
    its name, the arrays checked into `arrays`. `shape`: the grid's (ny, nx), or a function giving
    it (called only when an array is found; None: no grid, a SceneError)."""
    if isinstance(value, np.ndarray) and solver == "mpm" and is_array_key(solver, path):
        a = row_array(path, value)
        name = f"{PREFIX}{path}@{digest(a)}"
        arrays[name] = a
        return name
    if isinstance(value, np.ndarray) and is_raster_key(solver, path):
        want = shape() if callable(shape) else shape
        if want is None:
            raise _silt.SceneError(
                f"'{path}' is a NumPy array: an array has no georeferencing, so the scene needs "
                "\"grid\": {\"nx\", \"ny\", \"dx\", \"origin\"} with it")
        a = grid_array(path, value, want)
        name = f"{PREFIX}{path}@{digest(a)}"
        arrays[name] = a
        return name
    if isinstance(value, dict):
        return {k: replace(solver, f"{path}.{k}" if path else str(k), v, shape, arrays)
                for k, v in value.items()}
    if isinstance(value, list):
        return [replace(solver, f"{path}[{k}]", v, shape, arrays) for k, v in enumerate(value)]
    return value


def extract(d: Dict[str, Any], name: str) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """The scene dict with each array at a raster key replaced by its name "array:<key>", and the
    arrays by name (checked). Other values stay as they are (NumPy values elsewhere become JSON
    lists); the dict given is not changed."""
    solver = d.get("solver")
    arrays: Dict[str, np.ndarray] = {}
    if solver not in ("swe", "mpm"):
        return d, arrays
    try:
        return replace(solver, "", d, _grid_shape(d), arrays), arrays
    except _silt.SceneError as e:
        raise _silt.SceneError(f"{name}: {e}") from None
