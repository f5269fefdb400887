"""silt.Ensemble: many variants of one scene as one run, as ``silt run scene --ensemble ens.json``
(docs/ensembles.md)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Union

from . import _silt
from ._scene import Scene

PathLike = Union[str, "os.PathLike[str]"]


class Ensemble:
    """An ensemble of a scene: shallow-water members with statistics of their maxima, or an MPM
    sweep with per-member measures (runout, final height, kinetic energy, time at rest).

    ``scene``: a scene file, or a :class:`silt.Scene` loaded from a file (its :meth:`Scene.set`
    values apply to every member, as ``--set`` does). ``ensemble``: an ensemble file, or the
    ensemble as a dict (the file's JSON). :meth:`run` writes what the CLI writes.

        ens = silt.Ensemble("scenes/mpm_column_sweep_2d.json", "scenes/column_sweep_ensemble.json")
        result = ens.run("out/sweep")   # measures.csv, measures_stats.csv, ... in out/sweep
    """

    def __init__(self, scene: Union[PathLike, Scene], ensemble: Union[PathLike, Dict[str, Any]]):
        if isinstance(scene, Scene):
            if not scene._spec.path:
                raise ValueError("silt.Ensemble: the scene must come from a file "
                                 "(Scene.from_file): members re-read it with their values")
            self._scene, self._overrides = scene._spec.path, list(scene._spec.overrides)
        elif isinstance(scene, (str, os.PathLike)):
            self._scene, self._overrides = os.fspath(scene), []
        else:
            raise TypeError(f"silt.Ensemble: scene must be a path or a silt.Scene, not "
                            f"{type(scene).__name__}")
        if isinstance(ensemble, dict):
            self._ensemble, self._text = "<ensemble dict>", json.dumps(ensemble)
        elif isinstance(ensemble, (str, os.PathLike)):
            self._ensemble, self._text = os.fspath(ensemble), ""
        else:
            raise TypeError(f"silt.Ensemble: ensemble must be a path or a dict, not "
                            f"{type(ensemble).__name__}")

    def run(self, out: Optional[PathLike] = None, *, backend: str = "auto", device: int = 0,
            overwrite: bool = False, quiet: bool = True,
            restart: Optional[PathLike] = None,
            checkpoint_every: Optional[str] = None) -> Dict[str, Any]:
        """Runs every member (each checked before anything runs: a bad one raises
        :class:`silt.Error` naming the member and the key) and writes the ensemble's files into
        ``out`` (default ``silt-out/<ensemble file name>``; ``silt-out/ensemble`` for a dict), as
        the CLI does. Returns
        ``{"out", "members", "done", "files", "checkpoint"}``. Ctrl-C stops the members at their
        next frame and raises KeyboardInterrupt; the members that had finished are kept in
        ``out``/ensemble_checkpoint, and ``run(out, restart=out + "/ensemble_checkpoint")``
        continues (the report is then the uninterrupted run's). ``checkpoint_every`` ("10min",
        "sim:600": ``--checkpoint-every``, as :meth:`Simulation.run` takes it) also saves each
        running member's solver checkpoint at that interval, so that a killed process (a crash,
        SIGKILL) loses at most an interval of each running member."""
        if checkpoint_every is not None and not isinstance(checkpoint_every, str):
            raise TypeError(f"run: checkpoint_every must be a str such as '10min' or 'sim:2.5', "
                            f"not {checkpoint_every!r}")
        return _silt.run_ensemble(self._scene, self._overrides, self._ensemble, self._text,
                                  "" if out is None else os.fspath(out), backend, int(device),
                                  bool(overwrite), bool(quiet),
                                  "" if restart is None else os.fspath(restart),
                                  checkpoint_every or "")

    def validate(self) -> str:
        """Checks every member as :meth:`run` does before anything runs, without running or
        writing (``silt validate scene --ensemble ens.json``): returns the line that sums the
        ensemble up, or raises :class:`silt.Error` naming the first bad member and its key."""
        return _silt.validate_ensemble(self._scene, self._overrides, self._ensemble, self._text)

    def __repr__(self) -> str:
        return f"<silt.Ensemble of {self._scene!r} by {self._ensemble!r}>"


__all__: List[str] = ["Ensemble"]
