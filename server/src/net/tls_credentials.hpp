// The dealer's TLS certificate and key in the project's TLS profile (bp/wire/tls_profile.hpp),
// loaded at start and again on SIGHUP, so an operator rotating certificates (cert-manager,
// ACME) needs no restart: connections accepted after the reload get the new certificate,
// those already open keep the one they were made with, and a reload that fails (a missing
// file, a key that does not match) keeps the old certificate and says why.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <optional>
#include <variant>
#include <string>
#include <vector>

#include "bp/wire/tls_profile.hpp"

namespace bp::server {

class TlsCredentials {
 public:
  // Throws std::runtime_error naming the file when the first load fails.
  TlsCredentials(std::string cert_file, std::string key_file, wire::TlsFloor floor);

  // The context new connections use. Called on the acceptor's strand, as reload() is.
  boost::asio::ssl::context& current() { return *contexts_.back(); }
  // Loads the files again; the reason when that fails (and the old certificate stays).
  std::optional<std::string> reload();
  // When the current certificate expires, in seconds since the epoch (for the metric).
  double not_after() const { return not_after_; }

 private:
  struct Loaded {
    std::unique_ptr<boost::asio::ssl::context> context;
    double not_after = 0;
  };
  std::variant<Loaded, std::string> load() const;

  std::string cert_file_, key_file_;
  wire::TlsFloor floor_;
  // Every context loaded: the last is current, and the earlier ones stay alive because
  // connections accepted with them still use them (one per reload: a few KiB each).
  std::vector<std::unique_ptr<boost::asio::ssl::context>> contexts_;
  double not_after_ = 0;
};

}  // namespace bp::server
