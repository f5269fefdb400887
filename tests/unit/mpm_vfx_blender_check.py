"""Runs inside Blender (blender -b --python this -- TOOLS_DIR OUT_DIR EXPECTED_JSON), driven by
mpm_vfx_readers.py --check blender: imports frame 1 of a silt run through
tools/blender/silt_import.py and asserts the point count, the attribute names and the values of
the particles in EXPECTED_JSON (read from the frame's .vtp by VTK), the volume's grids, that a
sequence is one object whose points are each frame's on its own Blender frame, and that the script
run from a shell leaves a clean scene (no default cube, camera or light; --camera adds its own)
that a saved .blend keeps."""
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

def frame_points(obj, frame):
    """The sequence object's points on a Blender frame: (count, positions, attribute names),
    its geometry evaluated without the "silt points" modifier (Mesh to Points)."""
    bpy.context.scene.frame_set(frame)
    obj.modifiers["silt points"].show_viewport = False
    dg = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(dg)
    m = ev.to_mesh()
    got = (len(m.vertices), [tuple(v.co) for v in m.vertices],
           {a.name for a in m.attributes if not a.name.startswith(".")})
    ev.to_mesh_clear()
    obj.modifiers["silt points"].show_viewport = True
    return got


def check_sequence(objs, label):
    """One object whose points are silt frame k on Blender frame k + 1, every attribute kept."""
    meshes = [o for o in objs if o.type == "MESH"]
    check(len(meshes) == 1, f"{label}: {len(meshes)} mesh objects for a sequence, expected 1")
    obj = meshes[0]
    store = next(n.inputs["Collection"].default_value
                 for n in obj.modifiers["silt sequence"].node_group.nodes
                 if n.bl_idname == "GeometryNodeCollectionInfo")
    frames = sorted(store.objects, key=lambda o: o.name)
    check(len(frames) == 2, f"{label}: {len(frames)} frames stored from {out}, expected 2")
    for f, src in zip((1, 2), frames):
        n, pos, attrs = frame_points(obj, f)
        want = [tuple(v.co) for v in src.data.vertices]
        check(n == len(want) and pos == want,
              f"{label}: Blender frame {f} shows {n} points, not frame {f - 1}'s {len(want)}")
        check(want_attrs <= attrs, f"{label}: frame {f} lost attributes {want_attrs - attrs}")
    check(frame_points(obj, 1)[1] != frame_points(obj, 2)[1],
          f"{label}: frames 1 and 2 show the same points")
    return obj


want_attrs = want
n_points, n_attrs = len(mesh.vertices), len(names)  # before the file is replaced below
seq = check_sequence(silt_import.import_sequence(out, radius=0.02), "import_sequence")

# From a shell: a clean scene (no default cube, camera or light) with the sequence and the volume,
# saved and opened again (no script runs on opening: the modifier picks the frame).
blend = os.path.join(out, "sequence.blend")
bpy.ops.wm.read_homefile(use_factory_startup=True)
check({o.name for o in bpy.context.scene.objects} >= {"Cube", "Camera", "Light"},
      "the factory startup scene has no default cube, camera and light to remove")
silt_import.main(["--sequence", out, "--radius", "0.02", "--save", blend])
bpy.ops.wm.open_mainfile(filepath=blend)
scene_names = sorted(o.name for o in bpy.context.scene.objects)
check(len(scene_names) == 2 and not {"Cube", "Camera", "Light"} & set(scene_names),
      f"the saved scene holds {scene_names}, expected the sequence and the volume only")
check_sequence(list(bpy.context.scene.objects), "saved .blend")
bpy.ops.wm.read_homefile(use_factory_startup=True)
silt_import.main(["--sequence", out, "--camera"])
kinds = sorted(o.type for o in bpy.context.scene.objects)
check(kinds == ["CAMERA", "LIGHT", "MESH", "VOLUME"] and bpy.context.scene.camera,
      f"--camera: the scene holds {kinds}")
print(f"blender check: ok ({n_points} points, {n_attrs} attributes, "
      f"{len(exp['particles'])} particles' values, grids {sorted(grids)}, a 2-frame sequence as "
      "one object, a clean scene saved and opened again)")
