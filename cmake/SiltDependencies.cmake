# Every dependency is a Debian package found by CMake; nothing is downloaded at configure time.
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)  # the frame writer thread (io/frame_queue.hpp)
find_package(ZLIB REQUIRED)     # the checkpoints' CRC-32 (io/checkpoint_file.cpp)

# OpenMP for host code, also inside nvcc-compiled units (their host pass).
add_library(silt_openmp INTERFACE)
target_compile_options(silt_openmp INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:${OpenMP_CXX_FLAGS}>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${OpenMP_CXX_FLAGS}>)
target_link_libraries(silt_openmp INTERFACE OpenMP::OpenMP_CXX)

set(SILT_PNG OFF)
find_package(PNG)
if(PNG_FOUND)
  set(SILT_PNG ON)
endif()

# Text on PNG outputs (colour bar labels, times, legends): FreeType, optional.
set(SILT_FREETYPE OFF)
find_package(Freetype QUIET)
if(FREETYPE_FOUND)
  set(SILT_FREETYPE ON)
endif()

set(SILT_GDAL OFF)
if(SILT_ENABLE_GDAL)
  find_package(GDAL CONFIG QUIET)
  if(GDAL_FOUND)
    set(SILT_GDAL ON)
  else()
    message(STATUS "GDAL not found: rasters are ESRI ASCII only (no GeoTIFF/NetCDF)")
  endif()
endif()
# netCDF-C (libnetcdf-dev, which GDAL's netCDF driver uses too) appends the frames of a run to one
# NetCDF file (outputs.netcdf = "run"); without it NetCDF outputs are one file per frame.
set(SILT_NETCDF OFF)
if(SILT_GDAL)
  find_package(netCDF CONFIG QUIET)
  # HDF5 (under netCDF-4) prints its error stack on every thread that has not switched it off:
  # the frames are appended on the writer thread, which switches it off (io/raster/netcdf.cpp).
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SILT_HDF5 QUIET IMPORTED_TARGET hdf5)
  endif()
  if(netCDF_FOUND AND SILT_HDF5_FOUND)
    set(SILT_NETCDF ON)
  else()
    message(STATUS "netCDF-C or HDF5 not found: NetCDF outputs are one file per frame")
  endif()
endif()

set(SILT_MPI OFF)
if(SILT_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_FOUND)
    set(SILT_MPI ON)
  endif()
endif()

if(SILT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# The live viewer (src/silt/view, docs/viewer.md): civetweb serves the page and its WebSocket; the
# page's three.js is Debian's libjs-three, read at run time. Optional: a build without civetweb
# (the GPU machine) has no `--view`.
option(SILT_ENABLE_VIEW "The live viewer (silt run --view, silt view) when civetweb is found" ON)
set(SILT_THREE_DIR "/usr/share/javascript/three" CACHE PATH "Where libjs-three installs three.js")
set(SILT_VIEW OFF)
if(SILT_ENABLE_VIEW)
  find_package(civetweb MODULE QUIET)
  if(civetweb_FOUND)
    set(SILT_VIEW ON)
  else()
    message(STATUS "civetweb not found: no live viewer (install libcivetweb-dev)")
  endif()
endif()

# CGAL (libcgal-dev, header-only): the mesh checks find self-intersecting collider and source
# meshes (Polygon_mesh_processing::self_intersections, exact predicates). Optional: without it a
# mesh is checked for being closed only, and the run says that the self-intersection check was
# not built.
option(SILT_ENABLE_CGAL "Self-intersection checks of meshes through CGAL (when found)" ON)
set(SILT_CGAL OFF)
if(SILT_ENABLE_CGAL)
  find_package(CGAL QUIET)
  if(CGAL_FOUND)
    set(SILT_CGAL ON)
  else()
    message(STATUS "CGAL not found: meshes are not checked for self-intersections (install libcgal-dev)")
  endif()
endif()

# OpenVDB (libopenvdb-dev): mesh colliders become narrow-band signed distance fields
# (tools::meshToLevelSet), and particles and material volumes are written as .vdb for VFX tools.
# Optional: a build without it has no mesh colliders and no VDB outputs, and says so when a scene
# asks for them. Debian installs OpenVDB's FindOpenVDB.cmake beside its libraries.
option(SILT_ENABLE_VDB "Mesh colliders and VDB outputs through OpenVDB (when found)" ON)
set(SILT_VDB OFF)
if(SILT_ENABLE_VDB)
  # (under a prefix too: the GPU machine unpacks Debian's packages into one, bench/device_run.sh)
  foreach(prefix ${CMAKE_PREFIX_PATH} /usr)
    list(APPEND CMAKE_MODULE_PATH ${prefix}/lib/x86_64-linux-gnu/cmake/OpenVDB)
  endforeach()
  # Debian's FindOpenVDB sets BUILD_SHARED_LIBS ON in the caller's scope (for Boost): silt's
  # libraries stay static (the GPU build links a static zlib; the Python module is one .so).
  set(silt_shared_before "${BUILD_SHARED_LIBS}")
  # OpenVDB's find loads Imath's CMake file for its half floats. Debian's libimath-dev exports
  # Imath::PyImath_Python3_11 there too, whose library is in python3-imath (not installed, not
  # needed): loading it printed "The imported target ... references the file ... but this file
  # does not exist" on every configure. OpenVDB needs Imath::Imath only: silt makes that target
  # from the library and its headers, and Imath's CMake file is not read.
  if(NOT TARGET Imath::Imath)
    find_library(SILT_IMATH_LIBRARY NAMES Imath-3_1 Imath)
    find_path(SILT_IMATH_INCLUDE_DIR Imath/half.h)
    if(SILT_IMATH_LIBRARY AND SILT_IMATH_INCLUDE_DIR)
      add_library(Imath::Imath SHARED IMPORTED)
      set_target_properties(Imath::Imath PROPERTIES IMPORTED_LOCATION ${SILT_IMATH_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES "${SILT_IMATH_INCLUDE_DIR};${SILT_IMATH_INCLUDE_DIR}/Imath")
      set(CMAKE_DISABLE_FIND_PACKAGE_Imath ON)
    endif()
  endif()
  # Debian's FindOpenVDB also prints a leftover debug line ("COMPONENT = openvdb") whatever QUIET
  # says: its messages below warnings are not shown.
  set(CMAKE_MESSAGE_LOG_LEVEL WARNING)
  find_package(OpenVDB QUIET)
  unset(CMAKE_MESSAGE_LOG_LEVEL)
  unset(CMAKE_DISABLE_FIND_PACKAGE_Imath)
  set(BUILD_SHARED_LIBS "${silt_shared_before}")
  if(OpenVDB_FOUND)
    set(SILT_VDB ON)
  else()
    message(STATUS "OpenVDB not found: no mesh colliders or VDB outputs (install libopenvdb-dev)")
  endif()
endif()
