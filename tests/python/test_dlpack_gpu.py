# Zero-copy views of the particles on the GPU (DLPack into PyTorch and CuPy). Run on the GPU
# machine (bench/device_run.sh python); skipped where there is no CUDA backend, GPU or torch.
import numpy as np
import pytest

import silt
from conftest import has_cuda

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not has_cuda(), reason="no CUDA backend or GPU")]


def cuda_sim(sand_scene):
    sim = silt.Simulation(sand_scene, backend="cuda", devices=[0])
    sim.advance_frame()
    return sim


def test_torch_zero_copy(sand_scene):
    torch = pytest.importorskip("torch")
    sim = cuda_sim(sand_scene)
    views = sim.particles_device()
    pos = torch.from_dlpack(views["position"])
    ids = torch.from_dlpack(views["id"])
    assert pos.is_cuda and pos.device.index == 0
    assert tuple(pos.shape) == (sim.particle_count, 3) and pos.dtype == torch.float32
    again = torch.from_dlpack(sim.particles_device()["position"])
    assert pos.data_ptr() == again.data_ptr()  # the solver's memory, not a copy
    host = sim.particles()
    order = torch.argsort(ids.long()).cpu().numpy()
    assert np.array_equal(pos.cpu().numpy()[order], host["position"])
    # Work on the view in torch without a host copy: the centre of mass.
    assert float(pos[:, 1].mean()) == pytest.approx(float(host["position"][:, 1].mean()), rel=1e-5)
    sim.advance_frame()
    with pytest.raises(silt.StaleViewError):
        torch.from_dlpack(views["position"])
    fresh = torch.from_dlpack(sim.particles_device()["velocity"])
    assert torch.isfinite(fresh).all()


def test_cupy_zero_copy(sand_scene):
    cupy = pytest.importorskip("cupy")
    sim = cuda_sim(sand_scene)
    pos = cupy.from_dlpack(sim.particles_device()["position"])
    host = sim.particles()
    ids = cupy.from_dlpack(sim.particles_device()["id"]).get()
    assert np.array_equal(pos.get()[np.argsort(ids)], host["position"])


def test_cuda_matches_cpu_frames(sand_scene):
    gpu = silt.Simulation(sand_scene, backend="cuda")
    cpu = silt.Simulation(sand_scene, backend="cpu")
    gpu.advance_to(0.1)
    cpu.advance_to(0.1)
    # Atomic order differs between backends: compare the centre of mass and the front.
    a, b = gpu.particles()["position"], cpu.particles()["position"]
    assert a.mean(axis=0) == pytest.approx(b.mean(axis=0), abs=1e-3)
