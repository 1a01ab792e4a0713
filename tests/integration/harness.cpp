#include "harness.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace bp::test {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

DealerProcess::DealerProcess(std::vector<std::string> extra_flags) {
  char log_template[] = "/tmp/bp-dealer-log-XXXXXX";
  const int log_fd = mkstemp(log_template);
  REQUIRE(log_fd >= 0);
  log_path_ = log_template;
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_ = fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    close(out[0]);
    std::vector<std::string> args = {BP_DEALER_PATH, "--listen", "127.0.0.1:0", "--threads", "2"};
    args.insert(args.end(), extra_flags.begin(), extra_flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  close(log_fd);
  // "listening on 127.0.0.1:PORT\n"
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  const auto colon = line.rfind(':');
  REQUIRE_MESSAGE(colon != std::string::npos, "the dealer did not start: " << log());
  port_ = static_cast<uint16_t>(std::stoi(line.substr(colon + 1)));
}

DealerProcess::~DealerProcess() {
  if (pid_ > 0) kill_hard();
  std::remove(log_path_.c_str());
}

void DealerProcess::kill_hard() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

int DealerProcess::terminate_and_wait() {
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string DealerProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TestPki::TestPki() {
  char dir_template[] = "/tmp/bp-pki-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  dir = dir_template;
  ca_cert = dir + "/ca.crt";
  server_cert = dir + "/server.crt";
  server_key = dir + "/server.key";
  other_ca_cert = dir + "/other-ca.crt";
  const std::string script =
      "set -e; cd " + dir +
      "; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 2"
      " -subj '/CN=bp test CA' 2>/dev/null"
      "; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-ca.key -out other-ca.crt"
      " -days 2 -subj '/CN=another CA' 2>/dev/null"
      "; openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr"
      " -subj '/CN=127.0.0.1' 2>/dev/null"
      "; printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > ext.cnf"
      "; openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2"
      " -extfile ext.cnf 2>/dev/null";
  REQUIRE(std::system(script.c_str()) == 0);
}

TestPki::~TestPki() { std::system(("rm -rf " + dir).c_str()); }

namespace {
// One GET on an open stream, plain or TLS.
template <class Stream>
std::pair<int, std::string> get(Stream& stream, const std::string& path) {
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return {res.result_int(), res.body()};
}
}  // namespace

std::pair<int, std::string> https_get(uint16_t port, const std::string& path, const std::string& ca_file) {
  boost::asio::io_context ioc;
  boost::asio::ssl::context ctx(boost::asio::ssl::context::tls_client);
  ctx.load_verify_file(ca_file);
  beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
  stream.set_verify_mode(boost::asio::ssl::verify_peer);
  stream.set_verify_callback(boost::asio::ssl::host_name_verification("127.0.0.1"));
  beast::get_lowest_layer(stream).connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  stream.handshake(boost::asio::ssl::stream_base::client);
  return get(stream, path);
}

std::pair<int, std::string> http_get(uint16_t port, const std::string& path) {
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  auto out = get(stream, path);
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  return out;
}

RawParty::RawParty(uint16_t port) : ws_(ioc_) {
  beast::get_lowest_layer(ws_).connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  ws_.binary(true);
  ws_.handshake("127.0.0.1", "/");
}

void RawParty::send(const wire::Message& m) { send_bytes(wire::encode(m)); }

void RawParty::send_bytes(const std::vector<uint8_t>& bytes) {
  beast::error_code ec;
  ws_.write(boost::asio::buffer(bytes), ec);
}

std::optional<wire::Message> RawParty::receive(std::chrono::milliseconds timeout) {
  beast::get_lowest_layer(ws_).expires_after(timeout);
  beast::flat_buffer buffer;
  beast::error_code ec;
  ws_.read(buffer, ec);
  if (ec) return std::nullopt;
  const auto data = buffer.data();
  auto decoded = wire::decode({static_cast<const uint8_t*>(data.data()), data.size()}, wire::Limits{1 << 20});
  if (!decoded) return std::nullopt;
  return std::move(*decoded);
}

void RawParty::close() {
  beast::error_code ec;
  beast::get_lowest_layer(ws_).socket().close(ec);
}

std::string create_session(const DealerProcess& dealer, size_t bits, size_t parties, uint32_t round_timeout_ms) {
  auto created = client::create_session(dealer.endpoint(), {bits, parties, "integration", round_timeout_ms});
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  return created->session_id;
}

}  // namespace bp::test
