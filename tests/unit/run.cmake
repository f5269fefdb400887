# silt::run, the run layer (docs/run-layer.md): the device choice both front ends call.
silt_add_test(NAME run_devices_test SOURCES run_devices_test.cpp LABEL unit LIBS silt::run)
# The frame loop every front end drives: frames in order, checkpoints, stops.
silt_add_test(NAME run_frame_loop_test SOURCES run_frame_loop_test.cpp LABEL unit LIBS silt::run)
# Ensembles: the ensemble file, members validated before anything runs, the statistics' formulae.
silt_add_test(NAME run_ensemble_test SOURCES run_ensemble_test.cpp LABEL unit LIBS silt::run)
