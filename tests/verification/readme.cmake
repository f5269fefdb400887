# README.md line by line (label verification): every command of its sh blocks, as written and in
# order, from the repository's root after what the quickstart does (readme_test.py says which
# lines it leaves to CI's test.sh; skipped when this tree is not the root's build/). Needs the CLI, the viewer and Debian's python3 (venv); the venv line uses PyPI.
find_program(SILT_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SILT_DEBIAN_PYTHON AND TARGET silt AND TARGET silt_view)
  add_test(NAME readme_commands
           COMMAND ${SILT_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/readme_test.py
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  # RUN_SERIAL: its `pip install .` configures this build tree (pyproject.toml's build-dir).
  set_tests_properties(readme_commands PROPERTIES LABELS verification TIMEOUT 1500 RUN_SERIAL ON
                       SKIP_RETURN_CODE 77 ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
endif()

# The quickstart's MPM summary (its GPU branch) on the CPU: scripts/silt_summary.py on a short
# snowball run.
if(SILT_DEBIAN_PYTHON AND TARGET silt)
  add_test(NAME silt_summary_mpm
           COMMAND ${SILT_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/silt_summary_test.py
                   $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/silt_summary_mpm)
  set_tests_properties(silt_summary_mpm PROPERTIES LABELS verification TIMEOUT 120
                       ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
endif()
