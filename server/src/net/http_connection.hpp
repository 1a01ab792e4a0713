// One HTTP connection, on its own strand (after Boost.Beast's async server examples): reads
// requests one at a time, lets handle_request (http_routes.hpp) decide what each asks for,
// and writes one answer at a time. An Upgrade hands the socket to a WsConnection.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include "net/admission.hpp"
#include "net/connection_env.hpp"
#include "net/http_routes.hpp"

namespace bp::server {

template <class Stream>
class HttpConnection : public std::enable_shared_from_this<HttpConnection<Stream>> {
 public:
  // A refused ticket: the connection reads one request and answers it with the refusal.
  HttpConnection(Stream stream, ConnectionEnv env, std::unique_ptr<AdmissionTicket> ticket);
  ~HttpConnection();
  void run();

 private:
  void read_request();
  void on_request(boost::beast::error_code ec);
  void upgrade();
  void start_verification();
  void start_lookup(const std::string& id);  // GET /v1/sessions/ID, answered from the record
  void write(std::shared_ptr<HttpResponse> response);
  void write_later(HttpAnswer answer);  // from another thread: answered on the strand
  void close();
  std::shared_ptr<HttpResponse> reply(const HttpAnswer& answer) const;
  using std::enable_shared_from_this<HttpConnection<Stream>>::shared_from_this;

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  ConnectionEnv env_;
  std::unique_ptr<AdmissionTicket> ticket_;
  std::array<char, 4096> drain_{};
  size_t drained_ = 0;
  bool upgraded_ = false;
};

extern template class HttpConnection<PlainStream>;
extern template class HttpConnection<TlsStream>;

}  // namespace bp::server
