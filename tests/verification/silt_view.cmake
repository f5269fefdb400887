# The live viewer (label verification): `silt run --view` in headless Chromium and against bad
# input (silt_view_test.py says what each case checks). Chromium, chromedriver, selenium, PIL and
# websockets come from scripts/install-deps.sh; a missing one fails the test.
# Debian's python3: python3-selenium, -pil and -websockets install into its dist-packages, which
# another python3 first on PATH (pyenv, a venv) does not see.
find_program(SILT_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SILT_DEBIAN_PYTHON AND TARGET silt AND TARGET silt_view)
  foreach(case IN ITEMS mpm_browser swe_browser port_in_use bad_requests bad_clients
                    hostile_frames crowded paced_client replay unwatched replay_tools
                    live_slider ended_run)
    add_test(NAME silt_view_${case}
             COMMAND ${SILT_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/silt_view_test.py
                     $<TARGET_FILE:silt> ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_view_${case} ${case}
                     ${CMAKE_CURRENT_BINARY_DIR}/silt_view_shots)
    set_tests_properties(silt_view_${case} PROPERTIES LABELS verification TIMEOUT 600
                         ENVIRONMENT OMP_WAIT_POLICY=PASSIVE)
  endforeach()
endif()
