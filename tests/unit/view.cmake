# silt::view (the live viewer): addresses, browser commands, the wire format, the served files.
if(TARGET silt_view)
  silt_add_test(NAME view_test SOURCES view_test.cpp LABEL unit LIBS silt::view)
endif()
