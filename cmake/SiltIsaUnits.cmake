# silt_isa_units(<target> ISAS <isa>... SOURCES <file>... [OPTIONS <flag>...])
#
# The host code's wider instruction sets, from one source each: every file in SOURCES is compiled
# once per instruction set in ISAS (sse2, avx, avx2, avx512), by the host compiler, into an object
# library <target>_<isa> linked into <target>. Each compilation defines SILT_ISA (the set's name,
# which the unit uses as the namespace of its entry points) and SILT_ISA_BITS (its vector width),
# and gets the set's flags with -ffp-contract=off: AVX-512F has FMA instructions of its own, and no
# operation may be fused, so that every lane rounds as the scalar code does (the pack tests
# compare bits). The callers pick a set at run time (__builtin_cpu_supports). Name the files
# *_isa.cpp and leave them out of the target's own sources.
set(silt_isa_flags_sse2 "")  # the x86-64 baseline
set(silt_isa_flags_avx -mavx)
set(silt_isa_flags_avx2 -mavx2)
set(silt_isa_flags_avx512 -mavx512f)
set(silt_isa_bits_sse2 128)
set(silt_isa_bits_avx 256)
set(silt_isa_bits_avx2 256)
set(silt_isa_bits_avx512 512)

function(silt_isa_units target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ISAS;SOURCES;OPTIONS")
  foreach(isa IN LISTS arg_ISAS)
    if(NOT DEFINED silt_isa_flags_${isa})
      message(FATAL_ERROR "silt_isa_units(${target}): unknown instruction set '${isa}'")
    endif()
    set(lib ${target}_${isa})
    add_library(${lib} OBJECT ${arg_SOURCES})
    set_source_files_properties(${arg_SOURCES} TARGET_DIRECTORY ${lib} PROPERTIES LANGUAGE CXX)
    target_link_libraries(${lib} PRIVATE silt::core)
    target_compile_definitions(${lib} PRIVATE SILT_ISA=${isa} SILT_ISA_BITS=${silt_isa_bits_${isa}})
    target_compile_options(${lib} PRIVATE ${silt_isa_flags_${isa}} -ffp-contract=off ${arg_OPTIONS})
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${lib}>)
  endforeach()
endfunction()
