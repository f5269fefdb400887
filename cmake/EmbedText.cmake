# cmake -DIN=file -DOUT=file.cpp -P EmbedText.cmake: writes the text of IN as
# `extern const char* const silt_default_scene_text` into OUT (raw string literal).
file(READ ${IN} text)
get_filename_component(name ${IN} NAME)
file(WRITE ${OUT}
  "// Generated from ${name} by cmake/EmbedText.cmake.\n"
  "namespace silt::app {\n"
  "extern const char* const kDefaultSceneName = \"${name}\";\n"
  "extern const char* const kDefaultSceneText = R\"silt_scene(${text})silt_scene\";\n"
  "}  // namespace silt::app\n")
