# cmake -DROOT=<project root> [-DDROP=<name>] -P api_reference.cmake
#
# Fails, listing them, if a public name of include/mpitev/ is not a word of docs/api.md:
#   - every identifier starting mpitev_ or MPITEV_ outside comments, except internal
#     ones (a double underscore: mpitev__, MPITEV__, the NVTX3-style detail names);
#   - every field of a public struct (typedef struct mpitev_<name> { ... }), but
#     internal fields (mpitev__...);
#   - the MPI_T entry point of every PMPI_T_ function the adapter defines.
# DROP removes one word from the reference before the check (the test that the check
# can fail).
file(GLOB headers ${ROOT}/include/mpitev/*.h ${ROOT}/include/mpitev/detail/*.inc)
file(READ ${ROOT}/docs/api.md doc)
string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*" doc_words "${doc}")
list(REMOVE_DUPLICATES doc_words)
if(DROP)
  list(REMOVE_ITEM doc_words ${DROP})
endif()

set(names "")
set(fields "")
foreach(h ${headers})
  file(READ ${h} text)
  # Comments out: block comments (a name only mentioned there is not public), then
  # line comments. (CMake's regex has no non-greedy match: [^*] or a * not before /.)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX MATCHALL "(mpitev|MPITEV)_[A-Za-z0-9][A-Za-z0-9_]*" ids "${text}")
  foreach(id ${ids})
    if(NOT id MATCHES "__" AND NOT id MATCHES "_$")
      list(APPEND names ${id})
    endif()
  endforeach()
  # Public structs' fields: the last identifier of each member declaration, or the name
  # in (*name) for a function pointer.
  # (";" separates CMake's list items: each member's own ends as " @END@" first.)
  string(REPLACE ";" " @END@" text "${text}")
  string(REGEX MATCHALL "typedef struct mpitev_[a-z][a-z_]* {[^}]*}" blocks "${text}")
  foreach(b ${blocks})
    string(REGEX REPLACE "^typedef struct mpitev_[a-z][a-z_]* {" "" b "${b}")
    string(REGEX MATCHALL "[^@]+@END@" members "${b}")
    foreach(m ${members})
      if(m MATCHES "\\(\\*([a-z_][a-z0-9_]*)\\)")
        set(f ${CMAKE_MATCH_1})
      elseif(m MATCHES "([a-z_][a-z0-9_]*)[ \t]*(\\[[^]]*\\])?[ \t]*@END@$")
        set(f ${CMAKE_MATCH_1})
      else()
        continue()
      endif()
      if(NOT f MATCHES "^mpitev__")
        list(APPEND fields ${f})
      endif()
    endforeach()
  endforeach()
  string(REGEX MATCHALL "int PMPI_T_[a-z_]+\\(" defs "${text}")
  foreach(d ${defs})
    string(REGEX REPLACE "^int P(MPI_T_[a-z_]+)\\($" "\\1" d "${d}")
    list(APPEND names ${d})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(REMOVE_DUPLICATES fields)
list(LENGTH names nn)
list(LENGTH fields nf)
if(nn LESS 150 OR nf LESS 30)
  message(FATAL_ERROR "only ${nn} names and ${nf} fields found: the extraction is broken")
endif()

set(missing "")
foreach(n ${names} ${fields})
  list(FIND doc_words ${n} at)
  if(at EQUAL -1)
    list(APPEND missing ${n})
  endif()
endforeach()
if(missing)
  string(REPLACE ";" ", " missing "${missing}")
  message(FATAL_ERROR "docs/api.md does not name: ${missing}")
endif()
message(STATUS "docs/api.md names all ${nn} public names and ${nf} fields (${fields})")
