# Finds civetweb's C library (Debian: libcivetweb-dev) and defines civetweb::civetweb.
# Debian 12's own civetweb-config.cmake also imports the `civetweb` server program, which is in
# another package, and fails when that program is absent; this module looks for the library only.
find_path(civetweb_INCLUDE_DIR civetweb.h)
find_library(civetweb_LIBRARY civetweb)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(civetweb REQUIRED_VARS civetweb_LIBRARY civetweb_INCLUDE_DIR)
if(civetweb_FOUND AND NOT TARGET civetweb::civetweb)
  add_library(civetweb::civetweb UNKNOWN IMPORTED)
  set_target_properties(civetweb::civetweb PROPERTIES
    IMPORTED_LOCATION ${civetweb_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${civetweb_INCLUDE_DIR})
endif()
mark_as_advanced(civetweb_INCLUDE_DIR civetweb_LIBRARY)
