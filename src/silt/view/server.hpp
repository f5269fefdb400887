// The viewer's HTTP + WebSocket server (civetweb; docs/NOTES.md says why that library): it listens
// on one address only, answers GET for the page's own files (assets.hpp) and nothing else, and
// keeps one Client per WebSocket on /ws. What the browsers send arrives on civetweb's threads
// through Handlers; nothing here waits for a browser, and nothing a browser sends can end the run:
// no exception leaves a civetweb thread, one address holds a bounded share of the threads, and
// idle sockets time out (server.cpp says how).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "silt/view/address.hpp"
#include "silt/view/assets.hpp"
#include "silt/view/client.hpp"

struct mg_context;
struct mg_connection;

namespace silt::view {

struct Handlers {
  std::function<void(Client&)> connected;                    // send it what it needs first
  std::function<void(Client&, const std::string&)> message;  // a text message from a browser
  std::function<void()> disconnected;                        // a browser went away
  std::function<void(const std::string&)> log;               // lines a user should see
};

class Server {
 public:
  /// Starts listening on `address`; a port in use or a host that is not this machine's is an
  /// Error naming the address.
  Server(const Address& address, Assets assets, Handlers handlers);
  /// Closes every connection and stops.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// "http://host:port/" with the port actually bound.
  std::string url() const;
  int port() const { return port_; }
  std::size_t clients() const;
  /// Clients that follow the run (Client::following).
  std::size_t followers() const;
  /// True when some client that follows the run would send a frame given now
  /// (Client::ready_for_frame).
  bool any_ready_for_frame() const;

  /// To every client: a binary frame (to those that follow the run; dropped for a client still
  /// sending the previous one) or a text message.
  void broadcast_frame(const std::shared_ptr<const std::string>& frame);
  void broadcast_text(const std::string& text);

  /// Frames dropped so far over all clients that are still connected.
  std::size_t dropped() const;

  /// A line for the user (Handlers::log); never throws.
  void log(const std::string& line) const noexcept;

 private:
  static int on_connection(const mg_connection* conn, void** conn_data);
  static int on_http(mg_connection* conn, void* self);
  static int on_ws_connect(const mg_connection* conn, void* self);
  static void on_ws_ready(mg_connection* conn, void* self);
  static int on_ws_data(mg_connection* conn, int flags, char* data, std::size_t size, void* self);
  static void on_ws_close(const mg_connection* conn, void* self);

  Assets assets_;
  Handlers handlers_;
  Address address_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::map<const mg_connection*, std::unique_ptr<Client>> clients_;
  mg_context* ctx_ = nullptr;
};

}  // namespace silt::view
