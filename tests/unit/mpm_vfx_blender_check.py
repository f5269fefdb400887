"""Runs inside Blender (blender -b --python this -- TOOLS_DIR OUT_DIR EXPECTED_JSON), driven by
mpm_vfx_readers.py --check blender: imports frame 1 of a silt run through
tools/blender/silt_import.py and asserts the point count, the attribute names and the values of
the particles in EXPECTED_JSON (read from the frame's .vtp by VTK), the volume's grids, and that a
sequence import shows each frame on its own Blender frame only."""
import json
import math
import os
import sys

import bpy

tools, out, expected_path = sys.argv[sys.argv.index("--") + 1:]
sys.path.insert(0, tools)
import silt_import  # noqa: E402

# The PLY and the VTP hold the same float32 values; Blender stores float32.
TOL = 0.0


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


exp = json.load(open(expected_path))
obj = silt_import.import_particles(os.path.join(out, "particles_0001.ply"), radius=0.02)
mesh = obj.data
check(len(mesh.vertices) == exp["count"],
      f"{len(mesh.vertices)} vertices, the frame has {exp['count']} particles")
names = {a.name for a in mesh.attributes if not a.name.startswith(".")}
want = {"velocity", "material", "id", "sxx", "syy", "szz", "sxy", "syz", "sxz", "pressure",
        "plastic"}
check(names == want, f"attributes {sorted(names)}, expected {sorted(want)}")
check(mesh.attributes["velocity"].data_type == "FLOAT_VECTOR", "velocity is not a vector")
check(mesh.attributes["id"].data_type == "INT" and mesh.attributes["material"].data_type == "INT",
      "id and material are not integers")
ids = [d.value for d in mesh.attributes["id"].data]
row = {pid: i for i, pid in enumerate(ids)}
for pid, e in exp["particles"].items():
    i = row[int(pid)]
    got_p = list(mesh.vertices[i].co)
    got_v = list(mesh.attributes["velocity"].data[i].vector)
    check(all(abs(a - b) <= TOL for a, b in zip(got_p, e["position"])),
          f"particle {pid}: position {got_p}, expected {e['position']}")
    check(all(abs(a - b) <= TOL for a, b in zip(got_v, e["velocity"])),
          f"particle {pid}: velocity {got_v}, expected {e['velocity']}")
    check(mesh.attributes["material"].data[i].value == e["material"], f"particle {pid}: material")
    for k in ("sxx", "syy", "szz", "sxy", "syz", "sxz", "pressure", "plastic"):
        got = mesh.attributes[k].data[i].value
        check(abs(got - e[k]) <= TOL * max(1.0, abs(e[k])), f"particle {pid}: {k} {got} vs {e[k]}")
mods = [m for m in obj.modifiers if m.type == "NODES"]
check(len(mods) == 1 and mods[0].node_group.name.startswith("silt points"),
      "no 'silt points' geometry-nodes modifier")
check(any(n.bl_idname == "GeometryNodeMeshToPoints" for n in mods[0].node_group.nodes),
      "the modifier has no Mesh to Points node")

vol = silt_import.import_volume(os.path.join(out, "volume_0001.vdb"))
vol.data.grids.load()
grids = {g.name for g in vol.data.grids}
check(grids == {"density", "velocity"}, f"volume grids {sorted(grids)}")

# A sequence: silt frame k on Blender frame k + 1 only.
objs = silt_import.import_sequence(out, radius=0.02)
meshes = [o for o in objs if o.type == "MESH"]
check(len(meshes) == 2, f"{len(meshes)} frames imported from {out}, expected 2")
for f in (1, 2):
    bpy.context.scene.frame_set(f)
    shown = [o.name for o in meshes if not o.hide_render]
    check(len(shown) == 1 and shown[0].startswith(f"particles_{f - 1:04d}"),
          f"Blender frame {f} shows {shown}")
print(f"blender check: ok ({len(mesh.vertices)} points, {len(names)} attributes, "
      f"{len(exp['particles'])} particles' values, grids {sorted(grids)}, a 2-frame sequence)")
