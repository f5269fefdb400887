# Shallow water: kernel functions on the host (plain g++, no GPU needed).
silt_add_test(NAME swe_kernels_test SOURCES swe_kernels_test.cpp LABEL unit TIMEOUT 120)
# The solver on CPU (label unit) and CUDA (label gpu).
silt_add_test(NAME swe_solver_test SOURCES swe_solver_test.cpp LABEL unit LIBS silt::swe CUDA
              TIMEOUT 300)
silt_add_test(NAME swe_set_series_test SOURCES swe_set_series_test.cpp LABEL unit LIBS silt::swe
              CUDA)
# Gravity, rain and bed changed between steps (solver_edit.cpp), on CPU (unit) and CUDA (gpu).
silt_add_test(NAME swe_solver_edit_test SOURCES swe_solver_edit_test.cpp LABEL unit LIBS silt::swe
              CUDA)
# Boundary lines and inflow lines laid on the grid: the edges and cells they take, their errors.
silt_add_test(NAME swe_boundary_lines_unit_test SOURCES swe_boundary_lines_test.cpp LABEL unit
              LIBS silt::swe)
# The edge flux on host packs of edges (float_pack.hpp): every lane the scalar bits (plain g++).
silt_add_test(NAME swe_pack_test SOURCES swe_pack_test.cpp LABEL unit LIBS silt::swe TIMEOUT 120)
# The cell update on host packs of cells and the row step's update pass: every lane the scalar bits.
silt_add_test(NAME swe_pack_update_test SOURCES swe_pack_update_test.cpp LABEL unit LIBS silt::swe
              TIMEOUT 120)
# The second-order scheme's reconstruction (kernels/muscl_k.hpp) on a small host grid (plain g++).
silt_add_test(NAME swe_muscl_test SOURCES swe_muscl_test.cpp LABEL unit TIMEOUT 120)
# The float32 sign tests of the limiters and the Roe flux (min.NaN / max.NaN on CUDA) against the
# forms they replaced, bit for bit over signed zeros, subnormals, infinities and NaNs (CUDA: gpu).
silt_add_test(NAME swe_sign_tests_device_test SOURCES swe_sign_tests_device_test.cpp LABEL unit
              CUDA TIMEOUT 120)
# The tile kernel's list of tiles with an active cell: the list (unit), and on CUDA (gpu) a masked
# run that launches only those tiles and matches the CPU, hazard maxima included.
silt_add_test(NAME swe_active_tiles_test SOURCES swe_active_tiles_test.cpp LABEL unit
              LIBS silt::swe CUDA TIMEOUT 120)
# The hazard fields a run accumulates: those its outputs read, with the bits of all (and, on CUDA,
# the tile kernel's fold of them against the pass); a checkpoint of fewer does not restart more.
silt_add_test(NAME swe_hazard_fields_test SOURCES swe_hazard_fields_test.cpp LABEL unit
              LIBS silt::io silt::swe CUDA TIMEOUT 120)
# The peak discharge of a step tracked on the device against the totals of each step, bit for bit.
silt_add_test(NAME swe_step_peaks_test SOURCES swe_step_peaks_test.cpp LABEL unit LIBS silt::swe
              CUDA)
# Gauges sampled on the device against probing at each sample time: the same rows, bit for bit.
silt_add_test(NAME swe_device_gauges_test SOURCES swe_device_gauges_test.cpp LABEL unit
              LIBS silt::swe CUDA TIMEOUT 120)
# Members of one grid stepped in lock step (batch.hpp): each member's own run bit for bit, on CPU
# (unit) and CUDA (gpu: one launch of the tile kernel for every member), and the refusals.
silt_add_test(NAME swe_batch_test SOURCES swe_batch_test.cpp LABEL unit LIBS silt::swe CUDA
              TIMEOUT 300)
