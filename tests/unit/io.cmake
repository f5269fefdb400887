# silt::io: scene loading, rasters (ESRI ASCII, GeoTIFF/NetCDF read back by GDAL), outputs, PNG.
silt_add_test(NAME io_scene_test SOURCES io_scene_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(io_scene_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
