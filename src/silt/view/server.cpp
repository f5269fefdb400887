#include "silt/view/server.hpp"

#include <civetweb.h>
#include <fmt/format.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/view/message.hpp"

namespace silt::view {

namespace {

// A browser's control messages are a few dozen bytes; anything longer is not one of ours.
constexpr std::size_t kMaxMessage = 4096;

// Seconds of silence after which the server pings a browser; civetweb closes a WebSocket after
// six pings unanswered (MG_MAX_UNANSWERED_PING + 1), so an idle socket that is not a browser (which
// answers pings by itself) is closed after about 35 s and frees its thread.
constexpr const char* kPingAfterMs = "5000";

// civetweb's request timeout: a request whose header has not arrived whole after this long (a
// slowloris client trickling bytes, a socket that sends nothing), or a write that cannot proceed
// (a client that stopped reading), gives up; either way only that client's thread waits, never
// the run.
constexpr const char* kRequestTimeoutMs = "10000";

// civetweb serves each connection on a thread of its own, WebSockets for their whole life.
constexpr int kThreads = 64;
// Connections one address may hold at once: a page takes one WebSocket and a few requests for its
// files (browsers open at most 6 per host). Beyond, connections are closed before their request is
// read (limit_connections_per_address), so one address holds at most this many of the kThreads
// threads: the others stay free for every other address.
constexpr int kMaxPerAddress = 16;

// civetweb's own log lines (one per refused request and broken connection) are not a user's
// concern: the server reports what matters through Handlers::log.
int quiet_log(const mg_connection*, const char*) {
  return 1;
}

// The remote address of a socket connected to local port `port`, or "" for any other descriptor
// (a file, the listening socket, a connection to another port).
std::string peer_on_port(int fd, int port) {
  sockaddr_storage self{}, peer{};
  socklen_t n = sizeof self, m = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &n) != 0) return "";
  const int local =
      self.ss_family == AF_INET    ? ntohs(reinterpret_cast<const sockaddr_in&>(self).sin_port)
      : self.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6&>(self).sin6_port)
                                   : -1;
  if (local != port || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &m) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {0};
  const void* addr =
      peer.ss_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(peer).sin_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(peer).sin6_addr);
  return ::inet_ntop(peer.ss_family, addr, text, sizeof text) ? text : "";
}

// Called as civetweb starts on a new connection, before it reads the request (civetweb tells
// nothing about the connection then, not even its address): the process's sockets on the viewer's
// port, grouped by remote address, and those of an address beyond kMaxPerAddress shut down (the
// newest descriptors first), so their threads' next read fails at once and civetweb closes them.
// One address, however many sockets it opens and however slowly it sends, holds at most
// kMaxPerAddress of the kThreads threads. Linux: the descriptors come from /proc/self/fd.
void limit_connections_per_address(int port) {
  if (port <= 0) return;
  std::map<std::string, std::vector<int>> by_address;
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return;
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
    std::string peer = peer_on_port(int(fd), port);
    if (!peer.empty()) by_address[std::move(peer)].push_back(int(fd));
  }
  ::closedir(dir);
  for (auto& [address, fds] : by_address) {
    if (int(fds.size()) <= kMaxPerAddress) continue;
    std::sort(fds.rbegin(), fds.rend());  // the lowest free number is reused: higher is newer
    for (std::size_t k = 0; k + kMaxPerAddress < fds.size(); ++k)
      if (peer_on_port(fds[k], port) == address)  // still that connection
        ::shutdown(fds[k], SHUT_RDWR);
  }
}

struct Library {
  Library() { mg_init_library(0); }
  ~Library() { mg_exit_library(); }
};

}  // namespace

Server::Server(const Address& address, Assets assets, Handlers handlers)
    : assets_(std::move(assets)), handlers_(std::move(handlers)), address_(address) {
  static Library library;
  const std::string ports = address.text();
  const std::string threads = std::to_string(kThreads);
  const char* options[] = {"listening_ports",
                           ports.c_str(),
                           "num_threads",
                           threads.c_str(),
                           "request_timeout_ms",
                           kRequestTimeoutMs,
                           "websocket_timeout_ms",
                           kPingAfterMs,
                           "enable_websocket_ping_pong",
                           "yes",
                           nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = quiet_log;
  callbacks.init_connection = &Server::on_connection;
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = options;
  char text[256] = {0};
  unsigned code = 0;
  mg_error_data error{};
  error.code = &code;
  error.text = text;
  error.text_buffer_size = sizeof(text);
  ctx_ = mg_start2(&init, &error);
  if (!ctx_)
    throw Error(
        fmt::format("--view {}: cannot listen there ({}); is the port in use, or the "
                    "host not an address of this machine?",
                    ports, text[0] ? text : "civetweb gave no reason"));
  mg_server_port bound{};
  if (mg_get_server_ports(ctx_, 1, &bound) == 1) port_ = bound.port;
  mg_set_request_handler(ctx_, "/", &Server::on_http, this);
  mg_set_websocket_handler(ctx_, "/ws", &Server::on_ws_connect, &Server::on_ws_ready,
                           &Server::on_ws_data, &Server::on_ws_close, this);
}

Server::~Server() {
  // mg_stop closes every connection; each close handler removes its Client first.
  if (ctx_) mg_stop(ctx_);
}

std::string Server::url() const {
  return fmt::format("http://{}:{}/", address_.host, port_);
}

std::size_t Server::clients() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return clients_.size();
}

std::size_t Server::followers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (const auto& c : clients_) n += c.second->following();
  return n;
}

bool Server::any_ready_for_frame() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& c : clients_)
    if (c.second->following() && c.second->ready_for_frame()) return true;
  return false;
}

std::size_t Server::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (const auto& c : clients_) n += c.second->dropped();
  return n;
}

void Server::broadcast_frame(const std::shared_ptr<const std::string>& frame) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& c : clients_)
    if (c.second->following()) c.second->send_frame(frame);
}

void Server::broadcast_text(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& c : clients_) c.second->send_text(text);
}

namespace {

// Server callbacks run on civetweb's threads: an exception that left one would end the process
// (std::terminate), so each body runs here, and what it throws ends only its connection. The log
// line quotes no client bytes.
template <class Body, class Result>
Result guarded(const Server& s, const char* where, Result on_error, Body body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    s.log(fmt::format("viewer: {} failed ({}); that connection is closed", where,
                      excerpt(e.what(), 200)));
  } catch (...) {
    s.log(fmt::format("viewer: {} failed; that connection is closed", where));
  }
  return on_error;
}

Server& server_of(const mg_connection* conn) {
  return *static_cast<Server*>(mg_get_user_data(mg_get_context(conn)));
}

}  // namespace

void Server::log(const std::string& line) const noexcept {
  try {
    if (handlers_.log) handlers_.log(line);
  } catch (...) {  // a log line is never worth a connection, let alone the run
  }
}

int Server::on_connection(const mg_connection* conn, void**) {
  Server& s = server_of(conn);
  return guarded(s, "a new connection", 0, [&] {
    limit_connections_per_address(s.port_);
    return 0;
  });
}

int Server::on_http(mg_connection* conn, void* self) {
  const auto& s = *static_cast<Server*>(self);
  return guarded(s, "a request", 500, [&] {
    const mg_request_info* req = mg_get_request_info(conn);
    const std::string method = req->request_method ? req->request_method : "";
    // The path exactly as sent (decoded, not cleaned): only a listed name is served.
    const Asset* a = req->local_uri_raw ? s.assets_.find(req->local_uri_raw) : nullptr;
    if (method != "GET" && method != "HEAD") {
      mg_send_http_error(conn, 405, "%s", "only GET");
      return 405;
    }
    if (!a) {
      mg_send_http_error(conn, 404, "%s", "not a file of the viewer");
      return 404;
    }
    mg_send_http_ok(conn, a->type.c_str(), static_cast<long long>(a->body.size()));
    if (method == "GET") mg_write(conn, a->body.data(), a->body.size());
    return 200;
  });
}

int Server::on_ws_connect(const mg_connection*, void*) {
  return 0;
}  // 0: accept

void Server::on_ws_ready(mg_connection* conn, void* self) {
  auto& s = *static_cast<Server*>(self);
  guarded(s, "a new WebSocket", 0, [&] {
    auto client = std::make_unique<Client>(conn);
    Client& c = *client;
    {
      std::lock_guard<std::mutex> lock(s.mutex_);
      s.clients_[conn] = std::move(client);
    }
    if (s.handlers_.connected) s.handlers_.connected(c);
    return 0;
  });
}

int Server::on_ws_data(mg_connection* conn, int flags, char* data, std::size_t size, void* self) {
  auto& s = *static_cast<Server*>(self);
  // 0 closes the connection: what a handler throws ends this browser's connection only.
  return guarded(s, "a WebSocket message", 0, [&] {
    const int opcode = flags & 0xf;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) return 0;
    if (opcode == MG_WEBSOCKET_OPCODE_PING || opcode == MG_WEBSOCKET_OPCODE_PONG) return 1;
    Client* c = nullptr;
    {
      std::lock_guard<std::mutex> lock(s.mutex_);
      const auto it = s.clients_.find(conn);
      if (it != s.clients_.end()) c = it->second.get();
    }
    if (!c) return 0;
    // The Client lives until this connection's close handler, which civetweb runs on this same
    // thread after this returns: using it here is safe.
    if (opcode != MG_WEBSOCKET_OPCODE_TEXT || !(flags & 0x80) || size > kMaxMessage) {
      c->send_text(to_text(nlohmann::json{{"type", "error"},
                                          {"message",
                                           "not a viewer command: expected one short JSON text "
                                           "message, e.g. {\"cmd\": \"pause\"}"}}));
      return 1;
    }
    if (s.handlers_.message) s.handlers_.message(*c, std::string(data, size));
    return 1;
  });
}

void Server::on_ws_close(const mg_connection* conn, void* self) {
  auto& s = *static_cast<Server*>(self);
  guarded(s, "closing a WebSocket", 0, [&] {
    std::unique_ptr<Client> gone;
    {
      std::lock_guard<std::mutex> lock(s.mutex_);
      const auto it = s.clients_.find(conn);
      if (it == s.clients_.end()) return 0;
      gone = std::move(it->second);
      s.clients_.erase(it);
    }
    // Destroyed outside the lock: a write in progress may take until it fails.
    gone.reset();
    if (s.handlers_.disconnected) s.handlers_.disconnected();
    return 0;
  });
}

}  // namespace silt::view
