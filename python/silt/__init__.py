"""silt from Python: MPM (sand, snow, water, elastic solids) and shallow water with pollutant
transport, on the CPU or on CUDA GPUs, over the same C++ library as the ``silt`` command.

    import silt
    scene = silt.Scene.from_file("scenes/mpm_sand_column_2d.json")
    scene.set("physics.cfl", 0.3)              # as ``silt run --set physics.cfl=0.3``
    sim = silt.Simulation(scene, backend="auto")
    sim.advance_to(0.5)
    p = sim.particles()                        # dict of NumPy arrays

docs/python.md describes the whole API.
"""

from ._silt import CheckpointError, Error, FaultError, SceneError
from ._silt import build_id, cuda_compiled, cuda_device_count, has_netcdf, host_thread_count
from ._ensemble import Ensemble
from ._scene import Scene
from ._simulation import DeviceArray, MpmSimulation, Simulation, StaleViewError, SweSimulation

__version__ = "0.1.0"

for _e in (CheckpointError, Error, FaultError, SceneError):
    _e.__module__ = "silt"  # silt.SceneError in tracebacks
del _e

__all__ = [
    "CheckpointError",
    "DeviceArray",
    "Ensemble",
    "Error",
    "FaultError",
    "MpmSimulation",
    "Scene",
    "SceneError",
    "Simulation",
    "StaleViewError",
    "SweSimulation",
    "build_id",
    "cuda_compiled",
    "cuda_device_count",
    "has_netcdf",
    "host_thread_count",
]
