"""silt.Simulation: one solver (MPM or shallow water) over the parts of a run."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _silt
from ._scene import Scene


class StaleViewError(_silt.Error):
    """A device view (:meth:`MpmSimulation.particles_device`) used after the simulation stepped."""


def Simulation(scene: Scene, backend: str = "auto", devices: Sequence[int] = (0,)) -> Union["MpmSimulation", "SweSimulation"]:
    """A simulation of ``scene``: an :class:`MpmSimulation` or a :class:`SweSimulation`.

    ``backend``: "cpu", "cuda" or "auto" (CUDA when this build has it and a GPU is present).
    ``devices``: one part per entry; CUDA device numbers (``[0, 1]``: two GPUs, ``[0, 0]``: two
    parts on one GPU) or, on the CPU, as many CPU partitions as entries.
    """
    if not isinstance(scene, Scene):
        raise TypeError(f"Simulation: scene must be a silt.Scene, not {type(scene).__name__}")
    if scene.solver == "mpm":
        return MpmSimulation(scene, backend, devices)
    return SweSimulation(scene, backend, devices)


def _devices(devices: Sequence[int]) -> List[int]:
    if isinstance(devices, (str, bytes)) or not hasattr(devices, "__iter__"):
        raise TypeError(f"devices must be a list of ints such as [0], not {devices!r}")
    out = []
    for d in devices:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"devices must be a list of ints such as [0], not {list(devices)!r}")
        out.append(int(d))
    return out


def _backend(backend: str) -> str:
    if not isinstance(backend, str):
        raise TypeError(f"backend must be 'cpu', 'cuda' or 'auto', not {backend!r}")
    return backend


class _Base:
    def __init__(self, scene: Scene, native_type: Any, backend: str, devices: Sequence[int]) -> None:
        self.scene = scene.copy()
        self._sim = native_type(self.scene._spec, _backend(backend), _devices(devices))

    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self._sim.time

    @property
    def steps(self) -> int:
        """Steps taken so far."""
        return self._sim.steps

    @property
    def backend(self) -> str:
        """Where it runs: "cpu (2 threads)", "cuda device 0 (NVIDIA H200, ...)", ..."""
        return self._sim.backend

    @property
    def layout(self) -> str:
        """How the run is split into parts."""
        return self._sim.layout

    def write_frame(self, dir: "str | os.PathLike[str]") -> List[str]:
        """Writes the current state as the next frame of ``dir`` with ``silt run``'s writers (the
        scene's formats, frames.csv, resolved_scene.json); returns the paths written."""
        return self._sim.write_frame(os.fspath(dir))

    def checkpoint(self, path: "str | os.PathLike[str]") -> None:
        """Writes a checkpoint (docs/checkpoints.md: atomic, versioned, tied to the scene)."""
        self._sim.checkpoint(os.fspath(path))

    def restore(self, path: "str | os.PathLike[str]") -> None:
        """Continues from a checkpoint of the same scene (one written by :meth:`checkpoint` or by
        ``silt run --checkpoint-every``); raises :class:`silt.CheckpointError` naming the problem."""
        self._sim.restore(os.fspath(path))

    def __repr__(self) -> str:
        return f"<silt.{type(self).__name__} '{self.scene.name}' t={self.time:.6g} s steps={self.steps} on {self.backend}>"


class DeviceArray:
    """A zero-copy view of a part's particle array, for ``torch.from_dlpack``, ``cupy.from_dlpack``
    or ``numpy.from_dlpack`` (CPU backend).

    Valid until the simulation steps again (:meth:`MpmSimulation.advance_frame`,
    :meth:`MpmSimulation.advance_to`, :meth:`restore`): a step sorts the particles in place and
    growth moves them. Converting a stale view raises :class:`StaleViewError`; a tensor made from a
    view before the step is not detected and then holds other particles' values, or freed memory.
    Treat the arrays as read-only.
    """

    def __init__(self, array: Any, owner: "MpmSimulation", generation: int, name: str) -> None:
        self._array = array
        self._owner = owner
        self._generation = generation
        self.name = name

    @property
    def valid(self) -> bool:
        """False once the simulation stepped after the view was taken."""
        return self._owner._sim.generation == self._generation

    def _check(self) -> None:
        if not self.valid:
            raise StaleViewError(
                f"the device view '{self.name}' was taken at frame generation {self._generation} and the "
                f"simulation has stepped since (generation {self._owner._sim.generation}); take a new one "
                "with particles_device() after each step")

    @property
    def shape(self) -> tuple:
        return tuple(self._array.shape)

    @property
    def dtype(self) -> Any:
        return self._array.dtype

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        self._check()
        return self._array.__dlpack_device__()

    def __repr__(self) -> str:
        state = "valid" if self.valid else "stale"
        return f"<silt.DeviceArray '{self.name}' shape={self.shape} {state}>"


class MpmSimulation(_Base):
    """An MPM run (docs/scenes-mpm.md): frames of ``frame_dt`` s, particles as NumPy arrays.

    Stepping releases the GIL; Ctrl-C stops :meth:`advance_to` at the end of a frame and raises
    KeyboardInterrupt, the simulation usable. A NaN or overflow raises :class:`silt.FaultError`
    naming the particle id and frame.
    """

    def __init__(self, scene: Scene, backend: str = "auto", devices: Sequence[int] = (0,)) -> None:
        if scene.solver != "mpm":
            raise _silt.SceneError(f"MpmSimulation: scene '{scene.name}' is a '{scene.solver}' scene")
        super().__init__(scene, _silt.MpmSimulation, backend, devices)

    @property
    def frame(self) -> int:
        """Frames advanced (frame k ends at t = k frame_dt)."""
        return self._sim.frame

    @property
    def frame_dt(self) -> float:
        """Simulated time of a frame, s (scene ``run.frame_dt``)."""
        return self._sim.frame_dt

    @property
    def frames(self) -> int:
        """The frames the scene asks for (``run.frames``; ``silt run`` stops there)."""
        return self._sim.frames

    @property
    def particle_count(self) -> int:
        return self._sim.particle_count

    @property
    def parts(self) -> int:
        return self._sim.parts

    def advance_frame(self) -> Dict[str, Any]:
        """One frame; returns its statistics (time, steps, ms_per_step, particles, active_blocks,
        rebuilds, dt_min, dt_max, stable_dt, kinetic_energy, rms_speed, warnings, ...)."""
        return self._sim.advance_frame()

    def advance_to(self, t: float) -> Optional[Dict[str, Any]]:
        """Whole frames until the time reaches ``t`` (s); returns the last frame's statistics
        (None when no frame was needed)."""
        return self._sim.advance_to(float(t))

    def run(self) -> Dict[str, Any]:
        """The frames ``silt run`` takes: to ``run.frames``, or until the rms speed falls below
        ``run.rest_speed`` when the scene sets it. Returns the last frame's statistics."""
        s = None
        while self.frame < self.frames:
            s = self.advance_frame()
            if self._sim.rest_speed > 0 and s["rms_speed"] < self._sim.rest_speed:
                break
        return s

    def particles(self, with_stress: bool = False) -> Dict[str, np.ndarray]:
        """Every particle in stable id order, copied to the host: position (n, 3) and velocity (n, 3)
        float32 in m and m/s, material (n,) int32 (index into the scene's materials), id (n,) int32;
        with_stress: also stress (n, 3, 3) Cauchy stress in Pa and plastic (n,) (log J_p or alpha)."""
        return self._sim.particles(bool(with_stress))

    def particles_device(self, part: int = 0) -> Dict[str, DeviceArray]:
        """Zero-copy views of part ``part``'s particles where they live (GPU memory on CUDA, host
        memory on the CPU), in storage order (not id order; ``id`` says which is which):
        position, velocity (n, 3), deformation_gradient (n, 3, 3), plastic, material, id (n,).

        ``torch.from_dlpack(sim.particles_device()["position"])`` makes a tensor on the GPU without
        a copy. The views are valid until the next step; see :class:`DeviceArray`.
        """
        if isinstance(part, bool) or not isinstance(part, (int, np.integer)):
            raise TypeError(f"particles_device: part must be an int, not {type(part).__name__}")
        arrays = self._sim.part_particles(int(part))
        g = self._sim.generation
        return {k: DeviceArray(a, self, g, k) for k, a in arrays.items()}

    def log(self) -> List[str]:
        """Lines the solver logged since the last call (warnings, rebalancing)."""
        return self._sim.take_log()


class SweSimulation(_Base):
    """A shallow-water run (docs/scenes-swe.md): fields on the grid as 2D NumPy arrays.

    ``field(name)[j, i]`` is cell (i, j), centred at ``(x[i], y[j])``: row 0 is the southern edge
    (plot with ``origin="lower"`` and ``extent=sim.extent``). Ctrl-C stops :meth:`advance_to`
    between batches of steps and raises KeyboardInterrupt, the simulation usable. A NaN, a negative
    depth or a collapsing time step raises :class:`silt.FaultError` naming the cell and step.
    """

    def __init__(self, scene: Scene, backend: str = "auto", devices: Sequence[int] = (0,)) -> None:
        if scene.solver != "swe":
            raise _silt.SceneError(f"SweSimulation: scene '{scene.name}' is a '{scene.solver}' scene")
        super().__init__(scene, _silt.SweSimulation, backend, devices)
        self.x = self._sim.centres(0)
        self.y = self._sim.centres(1)

    @property
    def extent(self) -> tuple:
        """(x_min, x_max, y_min, y_max) of the grid, m (for matplotlib's imshow)."""
        h = 0.5 * self._sim.dx
        return (float(self.x[0] - h), float(self.x[-1] + h), float(self.y[0] - h), float(self.y[-1] + h))

    @property
    def last_dt(self) -> float:
        return self._sim.last_dt

    @property
    def end_time(self) -> float:
        """The scene's ``run.end_time``, s."""
        return self._sim.end_time

    @property
    def output_times(self) -> List[float]:
        """The scene's output times, s."""
        return self._sim.output_times

    def advance_to(self, t: float) -> None:
        """Steps until the simulated time is ``t`` (s) exactly."""
        self._sim.advance_to(float(t))

    def advance_frame(self) -> Dict[str, Any]:
        """To the scene's next output time; returns time, steps, last_dt, volume, pollutant_mass and
        inflow_volume."""
        return self._sim.advance_frame()

    def run(self) -> Dict[str, Any]:
        """To the scene's ``run.end_time``; returns :meth:`totals`."""
        self.advance_to(self.end_time)
        return self.totals()

    def totals(self) -> Dict[str, float]:
        """time, steps, last_dt, volume (m^3), pollutant_mass (kg), inflow_volume (m^3)."""
        return self._sim.totals()

    def field(self, name: str) -> np.ndarray:
        """A field as a (ny, nx) float64 array, exactly as the output rasters hold it: "depth",
        "velocity", "u", "v", "level", "concentration", "max_depth" (NaN where inactive, and for
        level, velocity, u, v and concentration also where dry), or the raw "hu", "hv" (m^2/s),
        "hc" (kg/m^2) and "bed" (m)."""
        if not isinstance(name, str):
            raise TypeError(f"field: name must be a str such as 'depth', not {type(name).__name__}")
        return self._sim.field(name)

    def gauges(self) -> Dict[str, Any]:
        """The scene's gauges now: time, name (list), and arrays x, y, depth, u, v, concentration."""
        return self._sim.gauges()

    def write_gauges(self, dir: "str | os.PathLike[str]") -> str:
        """Appends the gauges' current values as a row of ``dir``/gauges.csv; returns its path."""
        return self._sim.write_gauges(os.fspath(dir))
