# mpitev_mpi_install_stamp(PREFIX STAMP_VAR TARGET_VAR), for the programs the integrations
# compile with an MPI build's own mpicc. PREFIX is a link that build.sh points at an
# install in its cache, and may point at another one later: a new build, or an older
# cached one whose mpicc is older than the programs, so a dependency on mpicc alone would
# keep programs linked against the install they were built with. STAMP_VAR receives a
# file that holds the install the link names and is rewritten only when that changes
# (make the programs depend on it); TARGET_VAR the target that checks it on every build
# (add it as a dependency of the programs' targets).
function(mpitev_mpi_install_stamp prefix stamp_var target_var)
  string(MAKE_C_IDENTIFIER "${prefix}" id)
  set(dir ${CMAKE_BINARY_DIR}/mpi-installs)
  file(MAKE_DIRECTORY ${dir})
  set(stamp ${dir}/${id})
  set(target mpi_install_${id})
  if(NOT TARGET ${target})
    add_custom_target(${target}
      COMMAND sh -c "readlink -f \"$1\" >\"$2.new\" && if cmp -s \"$2.new\" \"$2\"; then rm \"$2.new\"; else mv \"$2.new\" \"$2\"; fi"
              sh ${prefix} ${stamp}
      BYPRODUCTS ${stamp}
      COMMENT "which install ${prefix} names"
      VERBATIM)
  endif()
  set(${stamp_var} ${stamp} PARENT_SCOPE)
  set(${target_var} ${target} PARENT_SCOPE)
endfunction()
