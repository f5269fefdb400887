// Scene text before it becomes a JSON tree: files read with a size bound (a scene named /dev/zero
// or a FIFO that never ends is refused, not read until memory runs out), UTF-8 checks (the resolved
// scene written next to the outputs is JSON, so every name in it must be UTF-8), and a JSON parser
// whose errors name the file, line, column and key: syntax, numbers out of range (1e400), invalid
// UTF-8, duplicate keys (an error: the last one would silently win) and nesting too deep.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace silt::io {

using Json = nlohmann::json;

/// Scene files larger than this are refused (MiB of JSON text; big data goes into rasters and
/// CSV files, which the scene names).
constexpr double kMaxSceneBytes = 64.0 * 1024 * 1024;
/// Objects and arrays nested deeper than this are refused (scenes nest 4 or 5 levels).
constexpr int kMaxJsonDepth = 64;

/// Parses scene text (comments allowed); errors name `name`, the line and column, and the key
/// path where the parser was ('run.end_time').
Json parse_scene_text(const std::string& text, const std::string& name);

/// Parses a value given on the command line (--set path=value): false when it is not JSON at all
/// (the caller takes it as a string); throws naming `where` for JSON that is out of range,
/// duplicates a key or nests too deep.
bool parse_json_value(const std::string& text, const std::string& where, Json& out);

/// Reads a whole file of at most max_bytes; the error names the file (as `what` 'path') and the
/// system's reason, a directory as such, and a larger file (or an endless device) with the bound.
std::string read_text_file(const std::string& path, const std::string& what,
                           double max_bytes = kMaxSceneBytes);

/// True when s is well-formed UTF-8.
bool is_valid_utf8(std::string_view s);
/// Throws Error("<what> '<s, escaped>' is not valid UTF-8 (byte 0xE9 at offset 4)...") unless s
/// is valid UTF-8.
void require_utf8(std::string_view s, const std::string& what);

}  // namespace silt::io
