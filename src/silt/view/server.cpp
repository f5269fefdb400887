#include "silt/view/server.hpp"

#include <civetweb.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::view {

namespace {

// A browser's control messages are a few dozen bytes; anything longer is not one of ours.
constexpr std::size_t kMaxMessage = 4096;

// Seconds of silence after which the server pings a browser (a closed laptop lid is noticed and
// its connection freed; browsers answer pings by themselves).
constexpr const char* kPingAfterMs = "20000";

// civetweb's request timeout: a request that does not arrive, or a write that cannot proceed (a
// client that stopped reading), gives up after this long where civetweb applies it; either way
// only that client's threads wait, never the run.
constexpr const char* kWriteTimeoutMs = "15000";

// civetweb's own log lines (one per refused request and broken connection) are not a user's
// concern: the server reports what matters through Handlers::log.
int quiet_log(const mg_connection*, const char*) {
  return 1;
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
  const char* options[] = {"listening_ports",
                           ports.c_str(),
                           "num_threads",
                           "24",
                           "request_timeout_ms",
                           kWriteTimeoutMs,
                           "websocket_timeout_ms",
                           kPingAfterMs,
                           "enable_websocket_ping_pong",
                           "yes",
                           nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = quiet_log;
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

bool Server::any_ready_for_frame() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& c : clients_)
    if (c.second->ready_for_frame()) return true;
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
  for (auto& c : clients_) c.second->send_frame(frame);
}

void Server::broadcast_text(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& c : clients_) c.second->send_text(text);
}

int Server::on_http(mg_connection* conn, void* self) {
  const auto& s = *static_cast<Server*>(self);
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
}

int Server::on_ws_connect(const mg_connection*, void*) {
  return 0;
}  // 0: accept

void Server::on_ws_ready(mg_connection* conn, void* self) {
  auto& s = *static_cast<Server*>(self);
  auto client = std::make_unique<Client>(conn);
  Client& c = *client;
  {
    std::lock_guard<std::mutex> lock(s.mutex_);
    s.clients_[conn] = std::move(client);
  }
  if (s.handlers_.connected) s.handlers_.connected(c);
}

int Server::on_ws_data(mg_connection* conn, int flags, char* data, std::size_t size, void* self) {
  auto& s = *static_cast<Server*>(self);
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
    c->send_text(nlohmann::json{{"type", "error"},
                                {"message",
                                 "not a viewer command: expected one short JSON text message, "
                                 "e.g. {\"cmd\": \"pause\"}"}}
                     .dump());
    return 1;
  }
  if (s.handlers_.message) s.handlers_.message(*c, std::string(data, size));
  return 1;
}

void Server::on_ws_close(const mg_connection* conn, void* self) {
  auto& s = *static_cast<Server*>(self);
  std::unique_ptr<Client> gone;
  {
    std::lock_guard<std::mutex> lock(s.mutex_);
    const auto it = s.clients_.find(conn);
    if (it == s.clients_.end()) return;
    gone = std::move(it->second);
    s.clients_.erase(it);
  }
  // Destroyed outside the lock: a write in progress may take until it fails.
  gone.reset();
  if (s.handlers_.disconnected) s.handlers_.disconnected();
}

}  // namespace silt::view
