# Compile one header on its own: MODE=alone includes it; MODE=implementation also
# defines MPITEV_IMPLEMENTATION; MODE=source compiles the file SOURCE as it is (EXTRA:
# more compiler arguments, a list). Fails (non-zero) when the compiler fails.
if(MODE STREQUAL "source")
  get_filename_component(_cc_name ${CC} NAME)
  string(MAKE_C_IDENTIFIER "${_cc_name}_${SOURCE}_${EXTRA}" _id) # one object per test: ctest -j
  execute_process(COMMAND ${CC} ${FLAGS} ${EXTRA} -c ${SOURCE} -o ${CMAKE_CURRENT_BINARY_DIR}/src_${_id}.o
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CC} could not compile ${SOURCE} (${EXTRA}):\n${err}")
  endif()
  return()
endif()
if(MODE STREQUAL "implementation")
  set(_src "#define MPITEV_IMPLEMENTATION\n#include <${HEADER}>\n")
else()
  set(_src "#include <${HEADER}>\n")
endif()
string(MAKE_C_IDENTIFIER "${HEADER}_${MODE}" _id)
get_filename_component(_cc_name ${CC} NAME)
set(_file ${CMAKE_CURRENT_BINARY_DIR}/hdr_${_cc_name}_${_id}.c)
file(WRITE ${_file} "${_src}")
execute_process(COMMAND ${CC} ${FLAGS} -c ${_file} -o ${_file}.o RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CC} could not compile ${HEADER} (${MODE}):\n${err}")
endif()
