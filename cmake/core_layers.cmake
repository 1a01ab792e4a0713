# core's floors, kept by the build (docs/architecture.md, "core's floors"). Each folder of
# core/src may include only the folders below it; the arithmetic floor (arith, backend,
# group, msm, transcript) includes no proof folder and no proof's public header.
# Run at configure time (core/CMakeLists.txt) and by the static test core_layers:
#   cmake -DCORE=core -P cmake/core_layers.cmake

# folder -> what its files may not include
set(_bp_layer_arith "backend/;group/;msm/;transcript/")
set(_bp_layer_backend "group/;msm/;transcript/")
set(_bp_layer_group "msm/;transcript/")
set(_bp_layer_msm "transcript/")
set(_bp_layer_transcript "backend/;group/;msm/")
set(_bp_layer_proof "range/;r1cs/;bp/range_proof.hpp;bp/aggregation.hpp;bp/batch_verification.hpp;bp/bounds.hpp;bp/r1cs")
set(_bp_layer_range "r1cs/;bp/r1cs")
set(_bp_layer_r1cs "range/;bp/range_proof.hpp;bp/aggregation.hpp;bp/batch_verification.hpp;bp/bounds.hpp")
set(_bp_proof_words "proof/;range/;r1cs/;bp/range_proof.hpp;bp/aggregation.hpp;bp/batch_verification.hpp;bp/bounds.hpp;bp/r1cs;bp/generators.hpp;bp/inner_product_proof.hpp;bp/transcript_protocol.hpp;bp/errors.hpp")

function(bp_check_core_layers core_dir)
  set(problems "")
  foreach(folder arith backend group msm transcript proof range r1cs)
    set(forbidden ${_bp_layer_${folder}})
    if(folder MATCHES "^(arith|backend|group|msm|transcript)$")
      list(APPEND forbidden ${_bp_proof_words})
    endif()
    file(GLOB_RECURSE files "${core_dir}/src/${folder}/*.cpp" "${core_dir}/src/${folder}/*.hpp"
         "${core_dir}/src/${folder}/*.inc")
    foreach(file ${files})
      file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
      foreach(line ${includes})
        string(REGEX REPLACE "^[^\"<]*[\"<]([^\">]*)[\">].*$" "\\1" target "${line}")
        foreach(word ${forbidden})
          string(FIND "${target}" "${word}" at)
          if(at EQUAL 0)
            file(RELATIVE_PATH shown "${core_dir}" "${file}")
            list(APPEND problems "${shown} includes ${target} (src/${folder} lies below it, or beside it)")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "core's floors are crossed (cmake/core_layers.cmake):\n  ${text}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CORE)
  get_filename_component(core_abs "${CORE}" ABSOLUTE)
  bp_check_core_layers("${core_abs}")
  message(STATUS "core's floors hold")
endif()
