// The viewer's wire format (docs/viewer.md, "Protocol"). Text messages are JSON objects with a
// "type". Binary messages carry a frame: the 4 bytes "SILT", a little-endian uint32 L, L bytes of
// JSON header (padded with spaces so the payload starts 4-byte aligned), then the payload that
// the header describes.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace silt::view {

/// The text of a message: JSON whose strings may hold bytes from outside (a browser's message
/// quoted in an error, a file name) that are not UTF-8: those become U+FFFD instead of an
/// exception (nlohmann's dump() throws on them), so nothing a browser sends can make a reply throw.
std::string to_text(const nlohmann::json& message);

/// Starts a binary message with `header`; append the payload with append().
std::string begin_message(const nlohmann::json& header);

/// Appends n elements of a trivially copyable type (little-endian machines), then pads to 4 bytes.
template <class T>
void append(std::string& msg, const T* data, std::size_t n) {
  msg.append(reinterpret_cast<const char*>(data), n * sizeof(T));
  msg.append((4 - msg.size() % 4) % 4, '\0');
}

/// The header of a binary message (for tests and the replay); throws Error on a malformed one.
nlohmann::json read_header(const std::string& msg, std::size_t* payload_offset = nullptr);

}  // namespace silt::view
