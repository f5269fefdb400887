#!/usr/bin/env python3
"""Reads silt's particle files and PNG previews with readers that share no code with silt, and
prints what they hold, one array per line: "<file> <array> <count> <values...>" (floats as repr).

  .vtp  VTK's own vtkXMLPolyDataReader: points, vertex cells, point data, field data.
  .ply  VTK's vtkPLYReader for the points, plus the body decoded with numpy from the header's
        property list (vtkPLYReader drops properties it does not know, like vx or material).
  .png  VTK's vtkPNGReader: width, height and the RGB of every pixel (row 0 = top).

Needs VTK's Python module (Debian: python3-vtk9) and numpy. Used by mpm_particles_io_test.
"""
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def emit(path, name, values):
    flat = np.asarray(values).ravel()
    print(path, name, flat.size, " ".join(repr(float(v)) for v in flat))


def read_vtp(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        raise SystemExit(f"{path}: VTK reader error {r.GetErrorCode()}")
    pd = r.GetOutput()
    emit(path, "points", vtk_to_numpy(pd.GetPoints().GetData()))
    emit(path, "verts", [pd.GetNumberOfVerts()])
    types = set(pd.GetCellType(i) for i in range(pd.GetNumberOfCells()))
    emit(path, "cell_types", sorted(types))
    data = pd.GetPointData()
    for i in range(data.GetNumberOfArrays()):
        emit(path, data.GetArrayName(i), vtk_to_numpy(data.GetArray(i)))
    fd = pd.GetFieldData()
    for i in range(fd.GetNumberOfArrays()):
        emit(path, fd.GetArrayName(i), vtk_to_numpy(fd.GetArray(i)))


PLY_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2",
             "int16": "i2", "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4",
             "uint": "u4", "uint32": "u4", "float": "f4", "float32": "f4", "double": "f8",
             "float64": "f8"}


def read_ply(path):
    r = vtk.vtkPLYReader()
    r.SetFileName(path)
    r.Update()
    emit(path, "points", vtk_to_numpy(r.GetOutput().GetPoints().GetData()))
    raw = open(path, "rb").read()
    end = raw.index(b"end_header\n") + len(b"end_header\n")
    header = raw[:end].decode("ascii").splitlines()
    if header[0] != "ply" or header[1] != "format binary_little_endian 1.0":
        raise SystemExit(f"{path}: not a binary little-endian PLY: {header[:2]}")
    count, fields = None, []
    for line in header:
        words = line.split()
        if words[0] == "element":
            if words[1] != "vertex":
                raise SystemExit(f"{path}: unexpected element {words[1]}")
            count = int(words[2])
        elif words[0] == "property":
            fields.append((words[2], "<" + PLY_TYPES[words[1]]))
    body = np.frombuffer(raw, dtype=np.dtype(fields), count=count, offset=end)
    if end + body.nbytes != len(raw):
        raise SystemExit(f"{path}: {len(raw) - end - body.nbytes} bytes after the vertices")
    for name, _ in fields:
        emit(path, "ply." + name, body[name])


def read_png(path):
    r = vtk.vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    emit(path, "size", [w, h])
    rgb = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3]
    emit(path, "rgb", rgb)


for p in sys.argv[1:]:
    {"vtp": read_vtp, "ply": read_ply, "png": read_png}[p.rsplit(".", 1)[1]](p)
