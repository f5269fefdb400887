// Where the viewer listens: `--view [HOST:]PORT`. The host defaults to the loopback address, so a
// run exposes nothing unless a host is named (reach it through an ssh tunnel, docs/viewer.md).
#pragma once

#include <string>

namespace silt::view {

struct Address {
  std::string host = "127.0.0.1";  // a numeric IPv4 address, or an IPv6 one in brackets
  int port = 0;                    // 0: any free port (the server reports the one it got)
  /// "host:port", as civetweb's listening_ports takes it.
  std::string text() const;
};

/// Whether the server can listen on an IPv6 address (civetweb built with IPv6; Debian's is not).
bool ipv6_available();

/// Parses "[HOST:]PORT"; errors name `what` (the option) and the text. An IPv6 host is an error
/// when ipv6_available() is false.
Address parse_address(const std::string& text, const std::string& what = "--view");

}  // namespace silt::view
