"""silt.Simulation: one solver (MPM or shallow water) over the parts of a run."""

from __future__ import annotations

import math
import numbers
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


def _time(t: Any, what: str) -> float:
    """A time argument in s: a real number (not text, not a bool), finite and not negative.
    float(t) took "1" for 1 s, and a negative time silently did nothing."""
    if isinstance(t, (bool, np.bool_)) or not isinstance(t, numbers.Real):
        raise TypeError(f"{what}: t must be a number of seconds, got {type(t).__name__} {t!r}")
    value = float(t)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what}: t must be a finite time >= 0 s, got {value}")
    return value


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

    def _run(self, out: "str | os.PathLike[str] | None", checkpoint_every: Optional[str],
             overwrite: bool) -> Any:
        if checkpoint_every is not None and not isinstance(checkpoint_every, str):
            raise TypeError(f"run: checkpoint_every must be a str such as '10min' or 'sim:2.5', not {checkpoint_every!r}")
        return self._sim.run("" if out is None else os.fspath(out), checkpoint_every or "", bool(overwrite))

    def _change(self, values: Dict[str, Any], apply: Any, *args: Any) -> None:
        """Validates `values` as the scene keys they mirror (silt.SceneError naming the key), hands
        the changed scene to `apply`, and keeps it as :attr:`scene` once the solver took it."""
        scene = self.scene._updated(values)
        apply(scene._spec, *args)
        self.scene = scene

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
    :meth:`MpmSimulation.advance_to`, :meth:`restore`, :meth:`MpmSimulation.add_particles`): a step sorts the particles in place and
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

    def step(self) -> float:
        """One step of the time step the CFL condition allows, checked for faults; returns its dt,
        s (:attr:`time` and :attr:`steps` say where the run is). Steps are not clipped to frames:
        a frame begun after steps (:meth:`advance_frame`, :meth:`advance_to`) ends ``frame_dt``
        after where they left the run. Device views taken before end (:class:`DeviceArray`)."""
        return self._sim.step()

    def advance_to(self, t: float) -> Optional[Dict[str, Any]]:
        """Whole frames until the time reaches ``t`` (s); returns the last frame's statistics
        (None when no frame was needed)."""
        return self._sim.advance_to(_time(t, "advance_to"))

    def run(self, out: "str | os.PathLike[str] | None" = None, *, checkpoint_every: Optional[str] = None,
            overwrite: bool = False) -> Optional[Dict[str, Any]]:
        """What ``silt run`` does, through the same frame loop: the frames to ``run.frames``, or
        until the rms speed falls below ``run.rest_speed`` when the scene sets it. With ``out``, it
        writes there what ``silt run --out`` writes (frames in the scene's formats, frames.csv,
        resolved_scene.json; the folder must be empty or new unless ``overwrite``), from frame 0;
        ``checkpoint_every`` ("10min", "sim:0.5": ``--checkpoint-every``) adds checkpoints to
        out/checkpoint.silt. Ctrl-C stops it after a frame (the frames before it written, and a
        checkpoint with ``out``) and raises KeyboardInterrupt. Returns the last frame's statistics
        (None when no frame was left)."""
        return self._run(out, checkpoint_every, overwrite)

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

    def add_particles(self, position: Any, velocity: Any, source: Union[str, int] = 0) -> np.ndarray:
        """Adds particles between frames: ``position`` (m) and ``velocity`` (m/s) are (n, 3) float32
        or float64 arrays (converted to float32). They take the material and initial plastic state
        of the scene source ``source`` (its name or index) and the next stable ids after every id
        given so far (emissions included; checkpoints keep the counter), and go to the parts as an
        emission does. Returns their ids. A wrong shape or dtype raises TypeError or ValueError
        naming the argument; a row that is not finite or lies outside the domain, or more particles
        than ``max_particles``, raises ValueError naming the first bad row. Device views taken
        before end (:class:`DeviceArray`). A 2D scene's particles are put in its plane."""
        index = self._source_index(source)
        x = _rows("add_particles: position", position)
        v = _rows("add_particles: velocity", velocity)
        if x.shape[0] != v.shape[0]:
            raise ValueError(f"add_particles: position has {x.shape[0]} rows and velocity {v.shape[0]}")
        first = self._sim.add_particles(index, x, v)
        return np.arange(first, first + x.shape[0], dtype=np.int32)

    def colliders(self) -> List[Dict[str, Any]]:
        """The scene's colliders as they are now: name, kind ("plane", "sphere", "box", "cylinder"),
        ``at`` (the reference point now: a plane's point, a sphere's or cylinder's center, a box's
        box_min) and velocity (m/s)."""
        return self._sim.colliders()

    def set_collider(self, name: Union[str, int], *, point: Any = None, center: Any = None,
                     box_min: Any = None, velocity: Any = None) -> None:
        """Moves collider ``name`` (its name or index) between frames, from the current time on:
        ``point`` for a plane, ``center`` for a sphere or cylinder, ``box_min`` for a box (which
        keeps its size) is where it is now, and ``velocity`` (m/s) how it moves on; what is not
        given stays as it is. Every part gets the new position. A checkpoint holds the scene's
        colliders, so :meth:`checkpoint` raises :class:`silt.Error` after a move (until
        :meth:`restore`, which also puts the scene's colliders back)."""
        cols = self._sim.colliders()
        index = _pick("set_collider", "collider", name, [c["name"] for c in cols])
        c = cols[index]
        field = {"plane": "point", "sphere": "center", "cylinder": "center", "box": "box_min"}[c["kind"]]
        given = {"point": point, "center": center, "box_min": box_min}
        for k, value in given.items():
            if value is not None and k != field:
                raise ValueError(f"set_collider: collider '{c['name']}' is a {c['kind']}: give {field}=, not {k}=")
        at = c["at"] if given[field] is None else _vec3(f"set_collider: {field}", given[field])
        vel = c["velocity"] if velocity is None else _vec3("set_collider: velocity", velocity)
        self._sim.move_collider(index, at, vel)

    def set_gravity(self, gravity: Any) -> None:
        """Gravity (m/s^2; 2 or 3 numbers as ``physics.gravity`` takes them) from the current time
        on, between frames. Checked as the scene key is (:class:`silt.SceneError` naming
        ``physics.gravity``). A checkpoint holds the scene's values, so :meth:`checkpoint`
        raises :class:`silt.Error` after a change (until :meth:`restore`, which puts them back)."""
        self._change({"physics.gravity": gravity}, self._sim.set_physics)

    def set_material(self, material: Union[str, int], **params: Any) -> None:
        """Changes material ``material`` (its name or index) between frames, from the current time
        on: any parameter of its kind but ``kind`` and ``density`` (the particles' mass was set
        from it), e.g. ``set_material("sand", friction_angle=25, cohesion=0.01)``; the time step
        follows the new stiffness. Each value is checked as the scene key ``materials[i].<name>``
        is (:class:`silt.SceneError` naming it); ``kind`` or a new ``density`` raise ValueError.
        As for :meth:`set_gravity`, :meth:`checkpoint` refuses after a change."""
        names = [m["name"] for m in self.scene.to_dict()["materials"]]
        index = _pick("set_material", "material", material, names)
        if not params:
            raise TypeError("set_material: give the parameters to change, e.g. friction_angle=25")
        for fixed in ("kind", "name"):
            if fixed in params:
                raise ValueError(f"set_material: a material's {fixed} cannot change mid-run")
        self._change({f"materials[{index}].{k}": v for k, v in params.items()}, self._sim.set_physics)

    def _source_index(self, source: Union[str, int]) -> int:
        return _pick("add_particles", "source", source, self._sim.source_names())


def _pick(what: str, kind: str, key: Union[str, int], names: List[str]) -> int:
    """The index of the scene's `kind` named `key` (a name or an index)."""
    if isinstance(key, str):
        if key not in names:
            raise ValueError(f"{what}: the scene has no {kind} '{key}' (it has {names})")
        return names.index(key)
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise TypeError(f"{what}: {kind} must be a name or an index, not {type(key).__name__}")
    if not 0 <= int(key) < len(names):
        raise ValueError(f"{what}: {kind} {int(key)} does not exist (the scene has {len(names)}: {names})")
    return int(key)


def _rows(what: str, a: Any) -> np.ndarray:
    """a as C-contiguous (n, 3) float32; TypeError/ValueError naming `what` otherwise."""
    if not isinstance(a, np.ndarray):
        try:
            a = np.asarray(a)
        except Exception as e:
            raise TypeError(f"{what} must be an (n, 3) float array: {e}") from None
    if a.dtype not in (np.float32, np.float64):
        raise TypeError(f"{what} must be an (n, 3) float32 or float64 array, not {a.dtype}")
    if a.ndim != 2 or a.shape[1] != 3:
        raise ValueError(f"{what} must be an (n, 3) array, not of shape {a.shape}")
    with np.errstate(over="ignore"):
        out = np.ascontiguousarray(a, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if bad.size:
        r = int(bad[0])
        raise ValueError(f"{what} row {r} is not finite {tuple(float(x) for x in a[r])}")
    return out


def _samples(what: str, a: Any) -> np.ndarray:
    """a as a C-contiguous 1D float64 array; TypeError/ValueError naming `what` otherwise."""
    try:
        out = np.asarray(a)
    except Exception as e:
        raise TypeError(f"{what} must be a 1D array of numbers: {e}") from None
    if out.dtype.kind not in "fiu" or out.dtype == np.bool_:
        raise TypeError(f"{what} must be a 1D array of numbers, not {out.dtype}")
    if out.ndim != 1:
        raise ValueError(f"{what} must be a 1D array, not of shape {out.shape}")
    return np.ascontiguousarray(out, dtype=np.float64)


def _vec3(what: str, a: Any) -> List[float]:
    try:
        v = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be 3 numbers, not {a!r}") from None
    if v.shape != (3,) or not np.isfinite(v).all():
        raise ValueError(f"{what} must be 3 finite numbers, not {a!r}")
    return [float(x) for x in v]


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
        self._sim.advance_to(_time(t, "advance_to"))

    def step(self) -> float:
        """One step of the time step the CFL condition allows, clipped so as not to pass the next
        output time or ``run.end_time`` (so that ``while sim.time < sim.end_time: sim.step()``
        lands on each output time, as :meth:`run` does; past the end it is not clipped). Checked
        for faults as :meth:`advance_to` is. Returns the step's dt, s (:attr:`time` and
        :attr:`steps` say where the run is)."""
        return self._sim.step()

    def advance_frame(self) -> Dict[str, Any]:
        """To the scene's next output time; returns :meth:`totals`."""
        return self._sim.advance_frame()

    def run(self, out: "str | os.PathLike[str] | None" = None, *, checkpoint_every: Optional[str] = None,
            overwrite: bool = False) -> Dict[str, Any]:
        """What ``silt run`` does, through the same frame loop: to the scene's ``run.end_time``,
        stopping at its output times and gauge samples. With ``out``, it writes there what ``silt
        run --out`` writes (rasters and maps, frames.csv, gauges.csv, hydrograph.csv,
        mass_balance.csv, hazard rasters, resolved_scene.json; the folder must be empty or new
        unless ``overwrite``), from t = 0; ``checkpoint_every`` ("10min", "sim:600":
        ``--checkpoint-every``) adds checkpoints to out/checkpoint.silt. Ctrl-C stops it at the
        next frame or gauge time (what was due before written, and a checkpoint with ``out``) and
        raises KeyboardInterrupt. Returns :meth:`totals`."""
        return self._run(out, checkpoint_every, overwrite)

    def totals(self) -> Dict[str, float]:
        """time, steps, last_dt, volume (m^3 stored), pollutant_mass (kg), and the volumes since
        t = 0 (m^3; net: what left counts negative): net_inflow_volume (rain + boundaries +
        sources; also under its former name inflow_volume), rain_volume, infiltrated_volume,
        boundary_net_volume, source_net_volume, and boundary_volume / source_volume /
        section_volume: dicts of the net volume through each boundary, point source and cross
        section (outputs.cross_sections; toward the line's left) by name."""
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

    def set_series(self, name: str, times: Any, values: Any) -> None:
        """Replaces the time series of the discharge or level boundary or the point source ``name``
        between steps, from the current time on: ``times`` (s, increasing strictly) and ``values``
        (m^3/s into the domain, or m of water level) are 1D arrays of one length, interpolated
        linearly and held at the ends, as a scene's series. Raises TypeError or ValueError naming
        the argument, the boundary or source and the first bad sample. A checkpoint holds the
        scene's series, so :meth:`checkpoint` raises :class:`silt.Error` after a change (until
        :meth:`restore`, which also puts the scene's series back)."""
        if not isinstance(name, str):
            raise TypeError(f"set_series: name must be a str, not {type(name).__name__}")
        t = _samples("set_series: times", times)
        v = _samples("set_series: values", values)
        if t.shape != v.shape:
            raise ValueError(f"set_series: {t.shape[0]} times but {v.shape[0]} values")
        self._sim.set_series(name, t, v)

    def set_gravity(self, gravity: float) -> None:
        """Gravity (m/s^2) from the current time on, between steps; checked as
        ``physics.gravity`` is (:class:`silt.SceneError` naming it). Like every change below, it
        builds the solver's parts anew and continues from the state now, exactly as a restart
        from a checkpoint does (every cell, the clock, the volumes), on the CPU and on CUDA. A
        checkpoint holds the scene as given, so :meth:`checkpoint` raises :class:`silt.Error`
        after a change, and :meth:`restore` puts the scene back."""
        self._change({"physics.gravity": gravity}, self._sim.set_gravity)

    def set_rain(self, mm_h: Any = None, raster: Any = None) -> None:
        """The rain from the current time on, between steps. ``mm_h``: the uniform rate as
        ``rainfall_mm_h`` takes it (a number, or rows ``[[t, rate], ...]`` with t in s since the
        start; None: unchanged). ``raster``: a (ny, nx) array of rates in mm/h held from now on, or
        a ``rainfall`` object of the scene (frames with times, NetCDF); ``False`` removes the
        scene's rain rasters; None leaves them. Checked as those scene keys are
        (:class:`silt.SceneError` naming the key, or TypeError / ValueError for a bad array). See
        :meth:`set_gravity` for how the change is made and checkpoints."""
        values: Dict[str, Any] = {}
        if mm_h is not None:
            values["rainfall_mm_h"] = mm_h
        if isinstance(raster, np.ndarray):
            values["rainfall"] = {"frames": [{"time": 0, "raster": raster}], "units": "mm/h"}
        elif raster is not None and raster is not False:
            values["rainfall"] = raster
        if not values and raster is not False:
            raise TypeError("set_rain: give mm_h=, raster= or raster=False")
        self._change(values, self._sim.set_rain, raster is False)

    def set_bed(self, bed: Any, keep: str = "depth") -> None:
        """The bed (m) from the current time on, between steps: a (ny, nx) array, or anything the
        scene's ``bed`` takes (a number, a raster path, an analytic field), checked as that key
        is. The active cells stay as they are. ``keep="depth"``: each cell keeps its depth (the
        volume is unchanged; the level moves with the bed); ``keep="level"``: wet cells keep their
        water level h + z (deepen where the bed fell, dry where it rose above the water), with
        their velocity and concentration: the volume changes, and the water balance
        (mass_balance.csv's residual) shows it. :meth:`field` ("bed", "level") and the frames
        written after it show the new bed. See :meth:`set_gravity` for how the change is made and
        checkpoints."""
        if keep not in ("depth", "level"):
            raise ValueError(f"set_bed: keep must be 'depth' or 'level', not {keep!r}")
        self._change({"bed": bed}, self._sim.set_bed, keep == "level")

    def write_gauges(self, dir: "str | os.PathLike[str]") -> str:
        """Appends the gauges' current values as a row of ``dir``/gauges.csv; returns its path."""
        return self._sim.write_gauges(os.fspath(dir))
