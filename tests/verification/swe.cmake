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
