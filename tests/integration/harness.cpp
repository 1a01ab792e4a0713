#include "harness.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/beast/http.hpp>
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

std::pair<int, std::string> http_get(uint16_t port, const std::string& path) {
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  return {res.result_int(), res.body()};
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
