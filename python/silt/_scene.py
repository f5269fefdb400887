"""silt.Scene: a scene file or dict, validated by the same loaders as ``silt run``."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from . import _arrays, _silt


class Scene:
    """A validated scene (MPM or shallow water).

    Build one with :meth:`from_file` or :meth:`from_dict`; change values with :meth:`set`. Every
    change is validated at once, with the CLI's messages: a :class:`silt.SceneError` names the
    file (or the dict's name) and the key, e.g. ``"sand: 'physics.cfl' must be in (0, 1], not 2
    (set by --set physics.cfl=2)"``; unknown keys are errors.
    """

    def __init__(self, spec: "_silt.SceneSpec") -> None:
        self._spec = spec
        self._info = _silt.check_scene(spec)

    @classmethod
    def from_file(cls, path: "str | os.PathLike[str]") -> "Scene":
        """Loads a scene file (JSON with comments, docs/scenes-swe.md and docs/scenes-mpm.md)."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Scene.from_file: path must be a str or os.PathLike, not {type(path).__name__}")
        spec = _silt.SceneSpec()
        spec.path = os.fspath(path)
        return cls(spec)

    @classmethod
    def from_dict(cls, d: Dict[str, Any], name: str = "scene", base_dir: str = "") -> "Scene":
        """A scene from a dict with the keys of a scene file.

        ``name`` stands for the file name in messages (and is the scene's name unless the dict
        has one); relative paths in it (rasters, meshes, series) are resolved against
        ``base_dir`` ("" = the current directory). Values must be JSON-like: dict, list, str,
        int, float, bool, None (NumPy scalars and arrays are converted).

        A shallow-water scene takes a 2D NumPy array of shape (ny, nx) wherever it takes a raster
        (``bed``, ``initial.depth`` / ``level`` / ``u`` / ``v`` / ``concentration``, ``manning``,
        ``rainfall.frames[k].raster``, the ``infiltration`` parameters), on the grid that
        ``grid`` (nx, ny, dx, origin) gives: ``a[j, i]`` is cell (i, j), row 0 the southern edge.
        Arrays are checked (TypeError / ValueError naming the key: not real numbers, wrong shape,
        empty, not finite, with the first bad index), kept by reference and read when a
        simulation is made; the resolved scene names them ``"array:<key>"``.
        """
        if not isinstance(d, dict):
            raise TypeError(f"Scene.from_dict: d must be a dict, not {type(d).__name__}")
        d, arrays = _arrays.extract(d, str(name))
        spec = _silt.SceneSpec()
        spec.text = _to_json(d, name)
        spec.arrays = arrays
        spec.name = str(name)
        spec.base_dir = os.fspath(base_dir)
        return cls(spec)

    def set(self, path: str, value: Any) -> "Scene":
        """Sets one value, as ``silt run --set path=value`` does, and validates the scene again.

        ``path`` uses dots and ``[i]`` for list elements (``"sources[0].material"``). On a
        :class:`silt.SceneError` the scene keeps its previous values. Returns the scene.
        """
        if not isinstance(path, str) or not path:
            raise TypeError("Scene.set: path must be a non-empty str such as 'physics.cfl'")
        return self.update({path: value})

    def update(self, values: Dict[str, Any]) -> "Scene":
        """Sets several values with one validation at the end: for values that only make sense
        together (``{"grid.nx": 50, "grid.dx": 4.0}``, where either alone may put a gauge
        outside the grid). A 2D NumPy array may stand where the scene takes a raster
        (``scene.set("bed", dem)``; see :meth:`from_dict`). Returns the scene."""
        if not isinstance(values, dict):
            raise TypeError(f"Scene.update: values must be a dict of path: value, not {type(values).__name__}")
        for path in values:
            if not isinstance(path, str) or not path:
                raise TypeError("Scene.update: every path must be a non-empty str such as 'physics.cfl'")
        spec = self._copy_spec()
        arrays = dict(spec.arrays)
        overrides = list(spec.overrides)
        for path, value in values.items():
            value = _arrays.replace(self.solver, path, value, lambda: _grid_shape(self, values), arrays)
            overrides = _without_earlier(overrides, path)
            overrides.append(f"{path}={_to_json(value, path)}")
        spec.arrays, spec.overrides = arrays, overrides
        info = _silt.check_scene(spec)
        self._spec, self._info = spec, info
        return self

    def copy(self) -> "Scene":
        """An independent scene with the same source and overrides (for parameter sweeps; NumPy
        arrays are shared, not copied)."""
        return Scene(self._copy_spec())

    def _updated(self, values: Dict[str, Any]) -> "Scene":
        """A copy with `values` set (one validation; SceneError names the key): a simulation's
        setters check their values with it."""
        s = Scene.__new__(Scene)
        s._spec, s._info = self._copy_spec(), self._info
        return s.update(values)

    def _copy_spec(self) -> "_silt.SceneSpec":
        spec = _silt.SceneSpec()
        spec.path, spec.text, spec.name, spec.base_dir = (
            self._spec.path, self._spec.text, self._spec.name, self._spec.base_dir)
        spec.overrides = list(self._spec.overrides)
        spec.arrays = dict(self._spec.arrays)
        return spec

    @property
    def solver(self) -> str:
        """"mpm" or "swe"."""
        return self._info["solver"]

    @property
    def name(self) -> str:
        """The scene's name (its output folder's name in ``silt run``)."""
        return self._info["name"]

    @property
    def overrides(self) -> List[str]:
        """The values :meth:`set` changed, as ``--set`` assignments."""
        return list(self._spec.overrides)

    @property
    def warnings(self) -> List[str]:
        """Legal but probably unintended settings the loader noticed."""
        return list(self._info["warnings"])

    def to_dict(self) -> Dict[str, Any]:
        """The resolved scene: every default filled in, paths absolute (resolved_scene.json)."""
        return json.loads(self._info["resolved"])

    def summary(self) -> str:
        """What ``silt validate`` prints: domain or grid, materials, sources, outputs."""
        return self._info["summary"]

    def __repr__(self) -> str:
        where = self._spec.path or self._spec.name
        return f"<silt.Scene {self.solver} '{self.name}' from {where!r}, {len(self._spec.overrides)} overrides>"


def _without_earlier(overrides: List[str], path: str) -> List[str]:
    """The overrides without earlier ones of exactly `path`, which a new value replaces (so that
    messages name only the value now), unless a later one reached inside that value."""
    out: List[str] = []
    for k, o in enumerate(overrides):
        if o.split("=", 1)[0] == path and not any(
                p.split("=", 1)[0].startswith((path + ".", path + "[")) for p in overrides[k + 1:]):
            continue
        out.append(o)
    return out


def _grid_shape(scene: "Scene", values: Dict[str, Any]) -> "tuple[int, int]":
    """(ny, nx) of the scene's grid after `values` are set."""
    g = scene.to_dict()["grid"]
    nx = values.get("grid.nx", g["nx"])
    ny = values.get("grid.ny", g["ny"])
    return int(ny), int(nx)


def _plain(v: Any) -> Any:
    # NumPy scalars and arrays to JSON-able values; anything else is left to json's TypeError.
    if hasattr(v, "tolist") and callable(v.tolist):
        return v.tolist()
    raise TypeError(f"{type(v).__name__} is not a JSON value (dict, list, str, int, float, bool, None)")


def _to_json(v: Any, where: str) -> str:
    try:
        return json.dumps(v, default=_plain, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise _silt.SceneError(f"{where}: {e}") from None
