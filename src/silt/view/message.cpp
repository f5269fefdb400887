#include "silt/view/message.hpp"

#include <cstring>

#include "silt/core/error.hpp"

namespace silt::view {

std::string to_text(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string begin_message(const nlohmann::json& header) {
  std::string h = to_text(header);
  h.append((4 - h.size() % 4) % 4, ' ');
  const auto n = static_cast<std::uint32_t>(h.size());
  std::string msg = "SILT";
  msg.append(reinterpret_cast<const char*>(&n), 4);
  msg += h;
  return msg;
}

nlohmann::json read_header(const std::string& msg, std::size_t* payload_offset) {
  std::uint32_t n = 0;
  if (msg.size() < 8 || msg.compare(0, 4, "SILT") != 0) throw Error("viewer message: no SILT tag");
  std::memcpy(&n, msg.data() + 4, 4);
  if (msg.size() < 8 + std::size_t(n)) throw Error("viewer message: header longer than message");
  if (payload_offset) *payload_offset = 8 + n;
  return nlohmann::json::parse(msg.substr(8, n));
}

}  // namespace silt::view
