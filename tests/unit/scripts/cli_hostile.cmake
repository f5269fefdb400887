# cmake -DSILT=<silt> -DDIR=<scratch> [-DMPM=ON] -P cli_hostile.cmake  (tests/unit/cli.cmake)
# Each case writes a scene into DIR and runs `silt validate` and `silt run` on it; both must exit 1
# with every expected part in the message, within a time limit (a hang fails the case).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(failures 0)

# expect_error(<case> <scene file> PARTS <text>... [SET <path=value>...] [ONLY validate|run])
function(expect_error name scene)
  cmake_parse_arguments(E "" "ONLY" "PARTS;SET" ${ARGN})
  set(sets)
  foreach(s IN LISTS E_SET)
    list(APPEND sets --set ${s})
  endforeach()
  set(commands validate run)
  if(E_ONLY)
    set(commands ${E_ONLY})
  endif()
  foreach(cmd IN LISTS commands)
    set(extra)
    if(cmd STREQUAL "run")
      set(extra --backend cpu --quiet --out ${DIR}/out_${name})
    endif()
    execute_process(COMMAND ${SILT} ${cmd} ${scene} ${sets} ${extra} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    set(problem "")
    if(NOT rc STREQUAL "1")
      set(problem "exit ${rc}, expected 1")
    endif()
    foreach(p IN LISTS E_PARTS)
      string(FIND "${err}" "${p}" at)
      if(at EQUAL -1)
        set(problem "${problem} message lacks '${p}'")
      endif()
    endforeach()
    if(problem)
      message(SEND_ERROR "${name}: silt ${cmd}: ${problem}\n  stderr: ${err}\n  stdout: ${out}")
      math(EXPR failures "${failures} + 1")
      set(failures ${failures} PARENT_SCOPE)
    else()
      message(STATUS "${name}: silt ${cmd}: ${err}")
    endif()
  endforeach()
endfunction()

set(swe_ok "{\"solver\": \"swe\", \"grid\": {\"nx\": 10, \"ny\": 8, \"dx\": 2.0}, \"bed\": 1.0,
  \"initial\": {\"depth\": 0.5}, \"run\": {\"end_time\": 1}, \"outputs\": {\"png\": \"none\"}}")
file(WRITE ${DIR}/swe.json "${swe_ok}")

file(WRITE ${DIR}/overflow.json "{\"solver\":\"swe\",\"run\":{\"end_time\":1e400}}")
expect_error(overflow ${DIR}/overflow.json PARTS "overflow.json:1:" "'run.end_time'" "out of range")
expect_error(overflow_set ${DIR}/swe.json SET run.end_time=1e400
             PARTS "swe.json" "--set run.end_time=1e400" "out of range")
expect_error(nx_1e9 ${DIR}/swe.json SET grid.nx=1000000000 grid.ny=1
             PARTS "swe.json" "'grid'" "1000000000 x 1" "SILT_MEMORY_LIMIT")
expect_error(nx_ny_40000 ${DIR}/swe.json SET grid.nx=40000 grid.ny=40000
             PARTS "'grid'" "40000 x 40000" "GiB")
file(WRITE ${DIR}/huge.asc "ncols 1000000000\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n")
file(WRITE ${DIR}/huge_bed.json
     "{\"solver\": \"swe\", \"bed\": \"huge.asc\", \"run\": {\"end_time\": 1}}")
expect_error(asc_header ${DIR}/huge_bed.json PARTS "huge.asc" "ncols = 1000000000" "'bed'")
expect_error(output_interval ${DIR}/swe.json SET run.output_interval=1e-9
             PARTS "'run.output_interval'" "1000000")
expect_error(gauge_interval ${DIR}/swe.json
             SET outputs.gauges={\"interval\":1e-12,\"points\":[{\"x\":5,\"y\":5}]}
             PARTS "'outputs.gauges.interval'" "rows")
expect_error(dev_zero /dev/zero PARTS "'/dev/zero'" "a character device")
# Special files are refused before they are read (issue 39: a FIFO blocked for ever).
execute_process(COMMAND mkfifo ${DIR}/fifo.json ${DIR}/fifo.asc ${DIR}/fifo.silt)
expect_error(fifo_scene ${DIR}/fifo.json PARTS "fifo.json" "a FIFO")
expect_error(fifo_bed ${DIR}/swe.json SET bed=\"fifo.asc\" PARTS "'bed'" "fifo.asc" "a FIFO")
# Options given empty, or intervals too short for the run: one error naming the option.
set(run_only "")
foreach(option --view --checkpoint-every --restart --out)
  string(REPLACE "-" "" tag "${option}")
  execute_process(COMMAND ${SILT} run ${DIR}/swe.json --backend cpu --quiet ${option} ""
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc STREQUAL "1" OR NOT err MATCHES "${option} '': the value is empty")
    message(SEND_ERROR "${option} '': exit ${rc}: ${err}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
foreach(arg "--checkpoint-every;sim:1e-300" "--checkpoint-every;sim:1e-12" "--restart;/dev/zero"
        "--restart;${DIR}/fifo.silt")
  execute_process(COMMAND ${SILT} run ${DIR}/swe.json --backend cpu --quiet --out ${DIR}/out_opt
                          --overwrite ${arg}
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
  list(GET arg 0 option)
  if(NOT rc STREQUAL "1" OR NOT err MATCHES "${option}|checkpoint")
    message(SEND_ERROR "${arg}: exit ${rc}, expected 1 naming the option: ${err}")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "${arg}: ${err}")
  endif()
endforeach()
expect_error(dx_1e-300 ${DIR}/swe.json SET grid.dx=1e-300 PARTS "'grid.dx'" "1e-300")
# An ensemble file given where a scene goes (a new user's `silt run ens.json`): said so, with the
# way to run it, not "'solver' is missing".
file(WRITE ${DIR}/ens.json "{\"vary\": {\"keys\": {\"manning\": {\"scale\": [1, 2]}}}}")
expect_error(ensemble_as_scene ${DIR}/ens.json
             PARTS "ens.json" "is an ensemble file" "--ensemble ${DIR}/ens.json")
# `silt view` on an ensemble's folder (no frames): said so, with the folder it can replay.
file(MAKE_DIRECTORY ${DIR}/ens_out)
file(WRITE ${DIR}/ens_out/resolved_ensemble.json "{}")
execute_process(COMMAND ${SILT} view ${DIR}/ens_out --view 127.0.0.1:0 RESULT_VARIABLE rc
                ERROR_VARIABLE err TIMEOUT 20)
string(FIND "${err}" "is an ensemble's folder" at)
string(FIND "${err}" "${DIR}/ens_out/members/<name>" at2)
if(NOT rc STREQUAL "1" OR at EQUAL -1 OR at2 EQUAL -1)
  message(SEND_ERROR "view_ensemble: exit ${rc}, expected 1 naming the ensemble's folder: ${err}")
  math(EXPR failures "${failures} + 1")
else()
  message(STATUS "view_ensemble: ${err}")
endif()
file(WRITE ${DIR}/dup.json "{\"solver\": \"swe\", \"run\": {\"end_time\": 1, \"end_time\": 2}}")
expect_error(duplicate_key ${DIR}/dup.json PARTS "dup.json" "'run.end_time'" "twice")
expect_error(name_dotdot ${DIR}/swe.json SET name=\"..\" PARTS "'name'" "\"..\"")

if(MPM)
  set(mpm "{\"solver\": \"mpm\", \"name\": \"tiny\",
  \"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1], \"dx\": 0.05},
  \"materials\": [{\"name\": \"goo\", \"kind\": \"jelly\", \"youngs_modulus\": 2e4}],
  \"sources\": [{\"name\": \"box\", \"material\": \"goo\", \"min\": [0.3, 0.3, 0.3],
                 \"max\": [0.5, 0.5, 0.5]}],
  \"run\": {\"frames\": 1}}")
  file(WRITE ${DIR}/mpm.json "${mpm}")
  expect_error(mpm_emit ${DIR}/mpm.json SET sources[0].emit={\"interval\":1e-9,\"end\":1}
               PARTS "mpm.json" "'sources[0].emit.interval'")
  expect_error(mpm_dx ${DIR}/mpm.json SET domain.dx=1e-4 PARTS "mpm.json" "'sources'" "particles")
  expect_error(mpm_stiff ${DIR}/mpm.json SET materials[0].youngs_modulus=1e30
               PARTS "'materials[0]'" "steps")
  string(REPLACE "\"min\": [0.3, 0.3, 0.3],\n                 \"max\": [0.5, 0.5, 0.5]"
                 "\"shape\": \"mesh\", \"file\": \".\"" mesh "${mpm}")
  file(WRITE ${DIR}/mpm_mesh.json "${mesh}")
  expect_error(mpm_mesh_dir ${DIR}/mpm_mesh.json PARTS "mpm_mesh.json" "'sources[0].file'"
               "a directory")
  # A collider sequence's pattern is parsed by silt: printf fields other than one %d are errors
  # (issue 39: "%n" crashed validate and run with SIGSEGV), and so is a file name too long.
  file(WRITE ${DIR}/tet.obj "v 0.3 0.3 0.3\nv 0.6 0.3 0.3\nv 0.3 0.6 0.3\nv 0.3 0.3 0.6\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
  string(REPLACE "\"run\": {" "\"colliders\": [{\"kind\": \"mesh\", \"frames\": {\"pattern\": \"PATTERN\", \"first\": 1, \"last\": 2}}], \"run\": {" seq "${mpm}")
  string(REPEAT "a" 5000 long)
  foreach(pattern "w_%n_d.obj" "w_%s.obj" "w_%f.obj" "w_%5000d.obj" "${long}%d.obj")
    string(REPLACE "PATTERN" "${pattern}" text "${seq}")
    string(MD5 tag "${pattern}")
    file(WRITE ${DIR}/pattern_${tag}.json "${text}")
    expect_error(pattern_${tag} ${DIR}/pattern_${tag}.json PARTS "'colliders[0].frames.pattern'")
  endforeach()

  # The resolved scene of a run validates (and so runs) again, provenance and all.
  execute_process(COMMAND ${SILT} run ${DIR}/mpm.json --backend cpu --quiet --out ${DIR}/mpm_out
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "mpm run: exit ${rc}: ${err}")
    math(EXPR failures "${failures} + 1")
  endif()
  execute_process(COMMAND ${SILT} validate ${DIR}/mpm_out/resolved_scene.json RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "mpm resolved_scene.json does not validate: exit ${rc}: ${err}")
    math(EXPR failures "${failures} + 1")
  endif()
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()
