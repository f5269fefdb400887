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

Headless, from a shell:
  blender -b --python-exit-code 1 --python tools/blender/silt_import.py -- \
      out/particles_0012.ply \
      [out/volume_0012.vdb] [--radius 0.004] [--save shot.blend]
  blender -b --python-exit-code 1 --python tools/blender/silt_import.py -- \
      --sequence out/ --save shot.blend
--sequence DIR imports every particles_NNNN.ply (and volume_NNNN.vdb) of an output folder, silt
frame k on Blender frame k + 1, each frame's mesh visible on its own frame only. In Blender's
Scripting tab, run this file, then call import_particles(path) or import_volume(path).
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


def import_sequence(folder, radius=0.005):
    """Every particles_NNNN.ply of a silt output folder, frame k shown on Blender frame k + 1
    only, and the volume_NNNN.vdb sequence when there is one; returns the objects."""
    frames = sorted((int(m.group(1)), f) for f in os.listdir(folder)
                    for m in [re.fullmatch(r"particles_(\d+)\.ply", f)] if m)
    if not frames:
        raise SiltImportError(f"{folder}: no particles_NNNN.ply files")
    coll = bpy.data.collections.new("silt " + os.path.basename(os.path.normpath(folder)))
    bpy.context.scene.collection.children.link(coll)
    objs = []
    for k, f in frames:
        obj = import_particles(os.path.join(folder, f), radius, collection=coll)
        for at, hidden in ((k, True), (k + 1, False), (k + 2, True)):
            if at < 1:
                continue
            obj.hide_viewport = obj.hide_render = hidden
            obj.keyframe_insert("hide_viewport", frame=at)
            obj.keyframe_insert("hide_render", frame=at)
        objs.append(obj)
    volumes = sorted(f for f in os.listdir(folder) if re.fullmatch(r"volume_\d+\.vdb", f))
    if volumes:
        objs.append(import_volume(os.path.join(folder, volumes[0]), len(volumes), coll))
    bpy.context.scene.frame_start = frames[0][0] + 1
    bpy.context.scene.frame_end = frames[-1][0] + 1
    return objs


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="blender -b --python silt_import.py --",
                                description="Import silt particle (.ply) and volume (.vdb) files.")
    p.add_argument("files", nargs="*", help="particles_NNNN.ply and volume_NNNN.vdb files")
    p.add_argument("--sequence", metavar="DIR", help="import every frame of an output folder")
    p.add_argument("--radius", type=float, default=0.005, help="point radius, m (about dx / 2)")
    p.add_argument("--save", metavar="FILE.blend", help="save the scene there")
    a = p.parse_args(argv)
    try:
        if a.sequence:
            import_sequence(a.sequence, a.radius)
        for f in a.files:
            if f.endswith(".ply"):
                import_particles(f, a.radius)
            elif f.endswith(".vdb"):
                if os.path.basename(f).startswith("particles_"):
                    raise SiltImportError(f"{f}: Blender reads no OpenVDB point grids; import "
                                          "the frame's .ply (outputs.formats \"ply\")")
                import_volume(f)
            else:
                raise SiltImportError(f"{f}: expected a .ply or .vdb file")
    except (SiltImportError, OSError) as e:
        print(f"silt_import: error: {e}", file=sys.stderr)
        sys.exit(1)
    if a.save:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(a.save))


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])
