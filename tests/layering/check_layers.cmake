cmake_minimum_required(VERSION 3.16)
# Checks that every quoted #include in core/src points down the layer order
#   api -> explore, validate -> io -> sim -> model -> hardware
# (the same order the per-layer libraries in core/CMakeLists.txt link in), and
# that no include reaches around it with a relative path; and that no source
# file is over 500 lines.
# Usage: cmake -DSRC=<core/src> -P check_layers.cmake
get_filename_component(SRC "${SRC}" ABSOLUTE)
set(order hardware model sim io explore validate api)
# What each layer may include besides itself.
set(allowed_hardware "")
set(allowed_model hardware)
set(allowed_sim model hardware)
set(allowed_io sim model hardware)
set(allowed_explore io sim model hardware)
set(allowed_validate io sim model hardware)
set(allowed_api explore validate io sim model hardware)

# Which layer owns each header.
foreach(layer ${order})
  file(GLOB headers RELATIVE ${SRC}/${layer} ${SRC}/${layer}/*.h)
  foreach(h ${headers})
    set(owner_${h} ${layer})
  endforeach()
endforeach()

set(bad "")
foreach(layer ${order})
  file(GLOB files ${SRC}/${layer}/*.h ${SRC}/${layer}/*.cpp)
  foreach(f ${files})
    file(STRINGS ${f} lines REGEX "^#include \"")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
      if(inc MATCHES "^llmcalc/")
        continue()
      endif()
      if(inc MATCHES "/")
        list(APPEND bad "${f}: ${inc} (a path: include a layer header by its name)")
        continue()
      endif()
      set(owner "${owner_${inc}}")
      if(owner STREQUAL "")
        list(APPEND bad "${f}: ${inc} (no layer owns this header)")
      elseif(NOT owner STREQUAL layer AND NOT owner IN_LIST allowed_${layer})
        list(APPEND bad "${f}: ${inc} (${layer} may not include ${owner})")
      endif()
    endforeach()
  endforeach()
endforeach()

# Small files: none over 500 lines.
file(GLOB_RECURSE all_sources ${SRC}/*.h ${SRC}/*.cpp)
foreach(f ${all_sources})
  file(STRINGS ${f} all_lines)
  list(LENGTH all_lines n)
  if(n GREATER 500)
    list(APPEND bad "${f}: ${n} lines (split it: at most 500)")
  endif()
endforeach()

# Every folder under core/src is a known layer.
file(GLOB dirs LIST_DIRECTORIES true RELATIVE ${SRC} ${SRC}/*)
foreach(d ${dirs})
  if(IS_DIRECTORY ${SRC}/${d} AND NOT d IN_LIST order)
    list(APPEND bad "core/src/${d}: not a layer of the order above")
  endif()
endforeach()

if(bad)
  string(REPLACE ";" "\n  " msg "${bad}")
  message(FATAL_ERROR "layering: includes against the layer order:\n  ${msg}")
endif()
message(STATUS "layering: ok")
