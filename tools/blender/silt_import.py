"""Imports silt's MPM outputs into Blender (3.4 and later) with every particle attribute.

Blender's own PLY importer keeps only positions (and colours), and Blender opens .vdb files as
volumes only, not OpenVDB point grids. This script reads silt's binary PLY frames itself and
makes, per frame, a mesh of vertices whose attributes are silt's particle properties, named as in
the file (docs/scenes-mpm.md, "Opening them: Blender"):

  velocity  FLOAT_VECTOR, m/s (from vx vy vz)
  material  INT, index into the scene's materials
  id        INT, the particle's stable id
  sxx syy szz sxy syz sxz pressure  FLOAT, Pa   (scenes with outputs.with_stress)
  plastic   FLOAT                               (scenes with outputs.with_stress)

and adds a Geometry Nodes modifier "silt points" (Mesh to Points, radius --radius) so that the
particles render as points in Cycles. volume_NNNN.vdb files (outputs.volume) become Volume
objects with their "density" and "velocity" grids.

Write the run with "outputs": {"up_axis": "z"} so that silt's up (+y) is Blender's up (+z).

Run from a shell, the script starts from an empty scene: Blender's default cube, camera and light
are removed (--keep-startup keeps them; --camera adds a camera and a sun light that frame the
imported particles).

Headless, from a shell:
  blender -b --python-exit-code 1 --python tools/blender/silt_import.py -- \
      out/particles_0012.ply \
      [out/volume_0012.vdb] [--radius 0.004] [--save shot.blend]
  blender -b --python-exit-code 1 --python tools/blender/silt_import.py -- \
      --sequence out/ --save shot.blend
--sequence DIR imports every particles_NNNN.ply (and volume_NNNN.vdb) of an output folder as ONE
object, "silt <folder>", whose points are silt frame k on Blender frame k + 1: the frames' meshes
are kept in a collection outside the scene, and a Geometry Nodes modifier "silt sequence" picks
the frame's mesh (Collection Info, Instance on Points with Pick Instance at the scene frame,
Realize Instances; no script runs when the .blend is opened). In Blender's Scripting tab, run this
file, then call import_particles(path), import_sequence(folder) or import_volume(path).
"""
import os
import re
import sys

import bpy
import numpy as np

PLY_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2",
             "int16": "i2", "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4",
             "uint": "u4", "uint32": "u4", "float": "f4", "float32": "f4", "double": "f8",
             "float64": "f8"}


class SiltImportError(Exception):
    """A file this script cannot import; the message names it."""


def read_ply(path):
    """The vertex element of a binary little-endian PLY as a numpy structured array."""
    with open(path, "rb") as f:
        raw = f.read()
    end = raw.find(b"end_header\n")
    if not raw.startswith(b"ply\n") or end < 0:
        raise SiltImportError(f"{path}: not a PLY file")
    header = raw[:end].decode("ascii", "replace").splitlines()
    if "format binary_little_endian 1.0" not in header:
        raise SiltImportError(f"{path}: only binary little-endian PLY is read (silt writes it)")
    count, fields, element = None, [], None
    for line in header:
        words = line.split()
        if words[:1] == ["element"]:
            element = words[1]
            if element == "vertex":
                count = int(words[2])
        elif words[:1] == ["property"] and element == "vertex":
            if words[1] == "list":
                raise SiltImportError(f"{path}: list properties are not particle data")
            if words[1] not in PLY_TYPES:
                raise SiltImportError(f"{path}: unknown PLY type '{words[1]}'")
            fields.append((words[2], "<" + PLY_TYPES[words[1]]))
    if count is None:
        raise SiltImportError(f"{path}: no vertex element")
    body = raw[end + len(b"end_header\n"):]
    dtype = np.dtype(fields)
    if len(body) < count * dtype.itemsize:
        raise SiltImportError(f"{path}: {len(body)} bytes of data for {count} vertices of "
                              f"{dtype.itemsize} bytes (file cut short?)")
    return np.frombuffer(body, dtype=dtype, count=count)


def points_modifier(obj, radius):
    """Geometry Nodes: Mesh to Points with the given radius (m); attributes pass through."""
    name = "silt points"
    group = bpy.data.node_groups.get(name)
    if group is None:
        group = bpy.data.node_groups.new(name, "GeometryNodeTree")
        group.inputs.new("NodeSocketGeometry", "Geometry")
        group.inputs.new("NodeSocketFloat", "Radius")
        group.outputs.new("NodeSocketGeometry", "Geometry")
        n_in = group.nodes.new("NodeGroupInput")
        n_out = group.nodes.new("NodeGroupOutput")
        to_points = group.nodes.new("GeometryNodeMeshToPoints")
        group.links.new(n_in.outputs["Geometry"], to_points.inputs["Mesh"])
        group.links.new(n_in.outputs["Radius"], to_points.inputs["Radius"])
        group.links.new(to_points.outputs["Points"], n_out.inputs["Geometry"])
    mod = obj.modifiers.new(name, "NODES")
    mod.node_group = group
    mod[group.inputs["Radius"].identifier] = float(radius)
    return mod


def import_particles(path, radius=0.005, name=None, collection=None):
    """One silt PLY frame as a mesh object of vertices with named attributes; returns the object."""
    v = read_ply(path)
    names = v.dtype.names
    for axis in ("x", "y", "z"):
        if axis not in names:
            raise SiltImportError(f"{path}: no vertex property '{axis}'")
    mesh = bpy.data.meshes.new(name or os.path.splitext(os.path.basename(path))[0])
    mesh.vertices.add(len(v))
    xyz = np.column_stack([v["x"], v["y"], v["z"]]).astype(np.float32)
    mesh.vertices.foreach_set("co", xyz.ravel())
    done = {"x", "y", "z"}
    if all(c in names for c in ("vx", "vy", "vz")):
        vel = np.column_stack([v["vx"], v["vy"], v["vz"]]).astype(np.float32)
        mesh.attributes.new("velocity", "FLOAT_VECTOR", "POINT").data.foreach_set(
            "vector", vel.ravel())
        done |= {"vx", "vy", "vz"}
    for prop in names:
        if prop in done:
            continue
        kind = v.dtype[prop].kind
        if kind in "iu":
            mesh.attributes.new(prop, "INT", "POINT").data.foreach_set(
                "value", v[prop].astype(np.int32))
        else:
            mesh.attributes.new(prop, "FLOAT", "POINT").data.foreach_set(
                "value", v[prop].astype(np.float32))
    mesh.update()
    obj = bpy.data.objects.new(mesh.name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    points_modifier(obj, radius)
    return obj


def import_volume(path, sequence_length=0, collection=None):
    """A silt volume_NNNN.vdb as a Volume object (grids density and velocity); with
    sequence_length > 0 the file is the first of that many frames, frame 0 on Blender frame 1."""
    vol = bpy.data.volumes.new(os.path.splitext(os.path.basename(path))[0])
    vol.filepath = path
    if sequence_length > 0:
        vol.is_sequence = True
        vol.frame_duration = sequence_length
        vol.frame_start = 1
    obj = bpy.data.objects.new(vol.name, vol)
    (collection or bpy.context.scene.collection).objects.link(obj)
    vol.grids.load()
    grids = {g.name for g in vol.grids}
    if "density" not in grids:
        raise SiltImportError(f"{path}: no 'density' grid (grids: {sorted(grids)})")
    return obj


def sequence_modifier(obj, frames, first):
    """Geometry Nodes "silt sequence": the object's geometry is the mesh of `frames` (a collection
    of one mesh object per frame, in name order) at index scene frame - first, attributes kept."""
    group = bpy.data.node_groups.new("silt sequence", "GeometryNodeTree")
    group.inputs.new("NodeSocketGeometry", "Geometry")
    group.outputs.new("NodeSocketGeometry", "Geometry")
    nodes, links = group.nodes, group.links
    n_out = nodes.new("NodeGroupOutput")
    nodes.new("NodeGroupInput")
    info = nodes.new("GeometryNodeCollectionInfo")
    info.transform_space = "ORIGINAL"
    info.inputs["Collection"].default_value = frames
    info.inputs["Separate Children"].default_value = True
    info.inputs["Reset Children"].default_value = True
    point = nodes.new("GeometryNodePoints")
    point.inputs["Count"].default_value = 1
    time = nodes.new("GeometryNodeInputSceneTime")
    index = nodes.new("ShaderNodeMath")
    index.operation = "SUBTRACT"
    index.inputs[1].default_value = float(first)
    links.new(time.outputs["Frame"], index.inputs[0])
    pick = nodes.new("GeometryNodeInstanceOnPoints")
    pick.inputs["Pick Instance"].default_value = True
    links.new(point.outputs["Geometry"], pick.inputs["Points"])
    links.new(info.outputs["Geometry"], pick.inputs["Instance"])
    links.new(index.outputs["Value"], pick.inputs["Instance Index"])
    real = nodes.new("GeometryNodeRealizeInstances")
    links.new(pick.outputs["Instances"], real.inputs["Geometry"])
    links.new(real.outputs["Geometry"], n_out.inputs["Geometry"])
    mod = obj.modifiers.new("silt sequence", "NODES")
    mod.node_group = group
    return mod


def import_sequence(folder, radius=0.005):
    """Every particles_NNNN.ply of a silt output folder as one object whose points are frame k on
    Blender frame k + 1 (its meshes in a collection outside the scene, picked by the modifier
    "silt sequence"), and the volume_NNNN.vdb sequence as one Volume object when there is one;
    returns the objects added to the scene."""
    frames = sorted((int(m.group(1)), f) for f in os.listdir(folder)
                    for m in [re.fullmatch(r"particles_(\d+)\.ply", f)] if m)
    if not frames:
        raise SiltImportError(f"{folder}: no particles_NNNN.ply files")
    name = "silt " + os.path.basename(os.path.normpath(folder))
    # The frames' meshes live outside the scene (kept in the file by a fake user); the modifier
    # reads them. Collection Info takes the children in name order: particles_NNNN sort by k.
    store = bpy.data.collections.new(name + " frames")
    store.use_fake_user = True
    for k, f in frames:
        v = import_particles(os.path.join(folder, f), radius, collection=store)
        v.modifiers.clear()
    obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
    bpy.context.scene.collection.objects.link(obj)
    sequence_modifier(obj, store, frames[0][0] + 1)
    points_modifier(obj, radius)
    objs = [obj]
    volumes = sorted(f for f in os.listdir(folder) if re.fullmatch(r"volume_\d+\.vdb", f))
    if volumes:
        objs.append(import_volume(os.path.join(folder, volumes[0]), len(volumes)))
    bpy.context.scene.frame_start = frames[0][0] + 1
    bpy.context.scene.frame_end = frames[-1][0] + 1
    return objs


def clean_scene():
    """Removes every object of the startup file (Blender's default cube, camera and light)."""
    for o in list(bpy.context.scene.objects):
        bpy.data.objects.remove(o, do_unlink=True)


def add_camera(objs):
    """A camera looking at the imported objects' bounds from the front and above (-y, +z up) and
    a sun light; the scene's camera."""
    import mathutils
    pts = [o.matrix_world @ mathutils.Vector(c) for o in objs for c in o.bound_box]
    for o in objs:  # a sequence's object has no vertices of its own: its frames' bounds
        for m in o.modifiers:
            if m.type == "NODES" and m.node_group and m.node_group.name.startswith("silt sequence"):
                for n in m.node_group.nodes:
                    if n.bl_idname == "GeometryNodeCollectionInfo":
                        coll = n.inputs["Collection"].default_value
                        pts += [mathutils.Vector(v.co) for f in coll.objects
                                for v in f.data.vertices]
    if not pts:
        pts = [mathutils.Vector((0, 0, 0))]
    lo = mathutils.Vector([min(p[i] for p in pts) for i in range(3)])
    hi = mathutils.Vector([max(p[i] for p in pts) for i in range(3)])
    centre, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.location = centre + mathutils.Vector((0, -1.6 * size, 0.8 * size))
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (0.6, 0.2, 0.8)
    for o in (cam, sun):
        bpy.context.scene.collection.objects.link(o)
    bpy.context.scene.camera = cam


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="blender -b --python silt_import.py --",
                                description="Import silt particle (.ply) and volume (.vdb) files.")
    p.add_argument("files", nargs="*", help="particles_NNNN.ply and volume_NNNN.vdb files")
    p.add_argument("--sequence", metavar="DIR", help="import every frame of an output folder")
    p.add_argument("--radius", type=float, default=0.005, help="point radius, m (about dx / 2)")
    p.add_argument("--save", metavar="FILE.blend", help="save the scene there")
    p.add_argument("--keep-startup", action="store_true",
                   help="keep the startup file's objects (the default cube, camera and light)")
    p.add_argument("--camera", action="store_true",
                   help="add a camera and a sun light that frame the imported particles")
    a = p.parse_args(argv)
    if not a.keep_startup:
        clean_scene()
    objs = []
    try:
        if a.sequence:
            objs += import_sequence(a.sequence, a.radius)
        for f in a.files:
            if f.endswith(".ply"):
                objs.append(import_particles(f, a.radius))
            elif f.endswith(".vdb"):
                if os.path.basename(f).startswith("particles_"):
                    raise SiltImportError(f"{f}: Blender reads no OpenVDB point grids; import "
                                          "the frame's .ply (outputs.formats \"ply\")")
                objs.append(import_volume(f))
            else:
                raise SiltImportError(f"{f}: expected a .ply or .vdb file")
    except (SiltImportError, OSError) as e:
        print(f"silt_import: error: {e}", file=sys.stderr)
        sys.exit(1)
    if a.camera:
        add_camera(objs)
    if a.save:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(a.save))


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])
