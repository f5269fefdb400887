#include "silt/view/address.hpp"

#include <civetweb.h>
#include <fmt/format.h>

#include <cctype>

#include "silt/core/error.hpp"

namespace silt::view {

bool ipv6_available() {
  return mg_check_feature(8) != 0;  // civetweb's feature bit 8: IPv6
}

std::string Address::text() const {
  return fmt::format("{}:{}", host, port);
}

Address parse_address(const std::string& text, const std::string& what) {
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("{} '{}': {} (expected [HOST:]PORT, e.g. 8080 or 127.0.0.1:8080)",
                             what, text, why));
  };
  Address a;
  std::string port = text;
  const auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host.empty()) throw bad("the host is empty");
    const bool bracketed = a.host.front() == '[' && a.host.back() == ']';
    if (a.host.find(':') != std::string::npos && !bracketed)
      throw bad("an IPv6 host goes in brackets, e.g. [::1]:8080");
    // Debian's civetweb has no IPv6: it would only fail to listen after the run had set up.
    if (bracketed && !ipv6_available())
      throw bad("this build's civetweb has no IPv6; use an IPv4 address, e.g. 127.0.0.1:8080");
    for (const char c : a.host)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ':' || c == '[' ||
            c == ']' || c == '-'))
        throw bad(fmt::format("the host has the character '{}'", c));
  }
  if (port.empty() || port.size() > 5) throw bad("the port is not a number from 0 to 65535");
  for (const char c : port)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw bad("the port is not a number from 0 to 65535");
  a.port = std::stoi(port);
  if (a.port > 65535) throw bad("the port is not a number from 0 to 65535");
  return a;
}

}  // namespace silt::view
