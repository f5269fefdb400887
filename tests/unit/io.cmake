# silt::io: scene loading, rasters (ESRI ASCII, GeoTIFF/NetCDF read back by GDAL), outputs, PNG.
silt_add_test(NAME io_scene_test SOURCES io_scene_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(io_scene_test PRIVATE SILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
silt_add_test(NAME io_field_cache_test SOURCES io_field_cache_test.cpp LABEL unit LIBS silt::io)
silt_add_test(NAME io_raster_test SOURCES io_raster_test.cpp LABEL unit LIBS silt::io)
target_compile_definitions(io_raster_test PRIVATE SILT_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
silt_add_test(NAME io_output_test SOURCES io_output_test.cpp LABEL unit LIBS silt::io)
silt_add_test(NAME io_frame_queue_test SOURCES io_frame_queue_test.cpp LABEL unit LIBS silt::io)
silt_add_test(NAME io_hostile_test SOURCES io_hostile_test.cpp LABEL unit LIBS silt::io)
if(SILT_FREETYPE)  # text on PNGs; the font (fonts-dejavu-core) missing fails the test
  silt_add_test(NAME io_png_legend_test SOURCES io_png_legend_test.cpp LABEL unit LIBS silt::io)
endif()
# GDAL and OpenVDB load on first use only (core/module_loader.hpp), and a missing module is an
# Error naming it: the second run points SILT_MODULE_DIR at a folder without modules.
silt_add_test(NAME io_modules_test SOURCES io_modules_test.cpp LABEL unit LIBS silt::io)
add_test(NAME io_modules_missing_test
         COMMAND io_modules_test --backend=cpu --gtest_filter=IoModules.MissingModuleIsAnError)
set_tests_properties(io_modules_missing_test PROPERTIES LABELS unit TIMEOUT 600 ENVIRONMENT
                     "SILT_MODULE_DIR=${CMAKE_CURRENT_BINARY_DIR}/no_modules_here")
silt_add_test(NAME io_png_overlay_test SOURCES io_png_overlay_test.cpp LABEL unit LIBS silt::io)
silt_add_test(NAME io_crs_test SOURCES io_crs_test.cpp LABEL unit LIBS silt::io)
silt_add_test(NAME io_rain_test SOURCES io_rain_test.cpp LABEL unit LIBS silt::io silt::swe)
target_compile_definitions(io_crs_test PRIVATE SILT_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
# One NetCDF file per run, checked by xarray, GDAL and the CF checker of the venv that
# scripts/install-deps.sh makes (cfchecks from PyPI and the CF standard-name table).
if(TARGET silt AND SILT_NETCDF)
  silt_add_script_test(NAME io_netcdf_cf_test SCRIPT io_netcdf_cf_test.py
                       DIR io_netcdf_cf LABEL unit TIMEOUT 300 THREADS 1)
endif()
# fields.nc in VTK's NetCDF CF reader with ParaView's defaults; hydrograph.nc (CF timeSeries)
# passes cfchecks and equals hydrograph.csv.
if(TARGET silt AND SILT_NETCDF)
  silt_add_script_test(NAME io_netcdf_readers_test SCRIPT io_netcdf_readers_test.py
                       DIR io_netcdf_readers LABEL unit TIMEOUT 120 THREADS 1)
endif()
# The report's maps (maximum depth, hazard class) read back: frame, tick labels, north arrow, legend.
if(TARGET silt AND SILT_PNG)
  silt_add_script_test(NAME swe_report_maps_test SCRIPT swe_report_maps_test.py
                       DIR swe_report_maps LABEL unit TIMEOUT 120 THREADS 2)
endif()
# Hazard outputs against Ritter's dam break, read with GDAL and xarray, checked by cfchecks.
if(TARGET silt AND SILT_NETCDF)
  silt_add_script_test(NAME swe_hazard_test SCRIPT swe_hazard_test.py
                       DIR swe_hazard LABEL verification TIMEOUT 300 THREADS 1)
endif()
