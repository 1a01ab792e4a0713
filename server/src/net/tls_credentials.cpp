#include "net/tls_credentials.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <ctime>
#include <stdexcept>

namespace bp::server {

namespace ssl = boost::asio::ssl;

TlsCredentials::TlsCredentials(std::string cert_file, std::string key_file, wire::TlsFloor floor)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), floor_(floor) {
  auto loaded = load();
  if (auto* why = std::get_if<std::string>(&loaded)) throw std::runtime_error(*why);
  auto& ok = std::get<Loaded>(loaded);
  not_after_ = ok.not_after;
  contexts_.push_back(std::move(ok.context));
}

std::optional<std::string> TlsCredentials::reload() {
  auto loaded = load();
  if (auto* why = std::get_if<std::string>(&loaded)) return *why;
  auto& ok = std::get<Loaded>(loaded);
  not_after_ = ok.not_after;
  contexts_.push_back(std::move(ok.context));
  return std::nullopt;
}

std::variant<TlsCredentials::Loaded, std::string> TlsCredentials::load() const {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  if (auto why = wire::apply_tls_profile(ctx->native_handle(), floor_)) return *why;
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert_file_, ec);
  if (ec) return "cannot load TLS certificate " + cert_file_ + ": " + ec.message();
  ctx->use_private_key_file(key_file_, ssl::context::pem, ec);
  if (ec) return "cannot load TLS key " + key_file_ + ": " + ec.message();
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    return "the TLS key " + key_file_ + " does not belong to the certificate " + cert_file_;
  double not_after = 0;
  if (X509* cert = SSL_CTX_get0_certificate(ctx->native_handle())) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) not_after = static_cast<double>(timegm(&tm));
  }
  return Loaded{std::move(ctx), not_after};
}

}  // namespace bp::server
