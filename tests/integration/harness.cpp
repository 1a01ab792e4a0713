#include "harness.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <algorithm>
#include <array>
#include <boost/asio/write.hpp>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bp/random.hpp"
#include "bp/server/dealer_process.hpp"

namespace bp::test {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

DealerProcess::DealerProcess(std::vector<std::string> extra_flags, std::optional<unsigned> nofile_limit) {
  char log_template[] = "/tmp/bp-dealer-log-XXXXXX";
  const int log_fd = mkstemp(log_template);
  REQUIRE(log_fd >= 0);
  log_path_ = log_template;
  std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--threads", "2"};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  if (std::find(args.begin(), args.end(), "--operator-key") == args.end()) args.push_back("--allow-anonymous");
  const auto child = server::start_dealer_process(BP_DEALER_PATH, args, log_fd, nofile_limit);
  close(log_fd);
  pid_ = child.pid;
  REQUIRE_MESSAGE(child.port != 0, "the dealer did not start: " << log());
  port_ = child.port;
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

std::pair<int, std::string> http_post(uint16_t port, const std::string& path, const std::string& body) {
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::string_body> req{http::verb::post, path, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/x-ndjson");
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return {res.result_int(), res.body()};
}

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

std::string http_raw(uint16_t port, const std::string& request, const std::string& local_address) {
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  if (!local_address.empty()) {
    stream.socket().open(tcp::v4());
    stream.socket().bind(tcp::endpoint(boost::asio::ip::make_address(local_address), 0));
  }
  stream.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  beast::error_code ec;
  boost::asio::write(stream.socket(), boost::asio::buffer(request), ec);
  std::string answer;
  std::array<char, 4096> chunk{};
  for (;;) {
    stream.expires_after(std::chrono::seconds(10));
    const size_t n = stream.read_some(boost::asio::buffer(chunk), ec);
    answer.append(chunk.data(), n);
    if (ec) break;
  }
  return answer;
}

int http_status(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
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

RawParty::RawParty(uint16_t port, const std::string& target, const std::string& local_address) : ws_(ioc_) {
  auto& socket = beast::get_lowest_layer(ws_).socket();
  if (!local_address.empty()) {
    socket.open(tcp::v4());
    socket.bind(tcp::endpoint(boost::asio::ip::make_address(local_address), 0));
  }
  beast::get_lowest_layer(ws_).connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  ws_.binary(true);
  ws_.handshake("127.0.0.1", target);
  auto hello = receive();
  REQUIRE_MESSAGE(hello.has_value(), "no Hello from the dealer");
  REQUIRE(std::holds_alternative<wire::HelloMsg>(*hello));
  const auto& h = std::get<wire::HelloMsg>(*hello);
  channel_.nonce = h.nonce;
  channel_.dealer_key = h.dealer_key;
}

wire::JoinSessionMsg RawParty::join_message(const std::string& session, std::vector<uint8_t> token,
                                            const wire::Identity* identity) const {
  wire::JoinSessionMsg join{session, std::move(token), std::nullopt};
  if (identity) {
    const auto& key = identity->public_key();
    join.party_auth = wire::KeySignature{key, identity->sign(wire::join_statement(channel_, join, key))};
  }
  return join;
}

void RawParty::send(const wire::Message& m) { send_bytes(wire::encode(m)); }

void RawParty::send_bytes(const std::vector<uint8_t>& bytes) {
  beast::error_code ec;
  ws_.write(boost::asio::buffer(bytes), ec);
}

void RawParty::send_in_one_write(const std::vector<wire::Message>& messages) {
  // Client-to-server frames (RFC 6455 5.2): FIN + binary, the mask bit and length, a masking
  // key, the payload XORed with it.
  std::vector<uint8_t> bytes;
  for (const auto& m : messages) {
    const auto payload = wire::encode(m);
    bytes.push_back(0x82);
    if (payload.size() < 126) {
      bytes.push_back(static_cast<uint8_t>(0x80 | payload.size()));
    } else {
      REQUIRE(payload.size() < 65536);
      bytes.push_back(0x80 | 126);
      bytes.push_back(static_cast<uint8_t>(payload.size() >> 8));
      bytes.push_back(static_cast<uint8_t>(payload.size()));
    }
    const std::array<uint8_t, 4> mask = {0x1b, 0x2c, 0x3d, 0x4e};
    bytes.insert(bytes.end(), mask.begin(), mask.end());
    for (size_t i = 0; i < payload.size(); ++i) bytes.push_back(payload[i] ^ mask[i % 4]);
  }
  boost::asio::write(beast::get_lowest_layer(ws_).socket(), boost::asio::buffer(bytes));
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

// One relayed connection. Downstream bytes go through a small WebSocket frame reader
// (server frames are unmasked) so the cut falls exactly at a frame boundary.
struct CuttingProxy::Pipe : std::enable_shared_from_this<Pipe> {
  tcp::socket client, server;
  int cut_at_frame;  // 0: never cut
  std::array<uint8_t, 8192> up{}, down{};
  std::string http_tail;  // the end of the upgrade response seen so far
  bool in_frames = false;
  int frame = 0;              // frames begun
  std::vector<uint8_t> head;  // the current frame's header bytes while incomplete
  uint64_t payload_left = 0;

  Pipe(tcp::socket c, tcp::socket s, int cut) : client(std::move(c)), server(std::move(s)), cut_at_frame(cut) {}

  void close() {
    beast::error_code ec;
    client.close(ec);
    server.close(ec);
  }
  void pump_up() {
    client.async_read_some(boost::asio::buffer(up), [self = shared_from_this()](beast::error_code ec, size_t n) {
      if (ec) return self->close();
      boost::asio::async_write(self->server, boost::asio::buffer(self->up, n),
                               [self](beast::error_code ec2, size_t) { ec2 ? self->close() : self->pump_up(); });
    });
  }
  // How many of these n downstream bytes may pass before the cut (n when no cut is due).
  size_t passable(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (!in_frames) {
        http_tail.push_back(static_cast<char>(p[i]));
        if (http_tail.size() >= 4 && http_tail.compare(http_tail.size() - 4, 4, "\r\n\r\n") == 0) in_frames = true;
        continue;
      }
      if (payload_left > 0) {
        --payload_left;
        continue;
      }
      if (head.empty() && ++frame == cut_at_frame) return i;
      head.push_back(p[i]);
      const size_t len7 = head.size() >= 2 ? (head[1] & 0x7f) : 0;
      const size_t need = head.size() < 2 ? 2 : len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
      if (head.size() < need) continue;
      payload_left = len7 < 126 ? len7 : 0;
      for (size_t k = 2; k < need; ++k) payload_left = (payload_left << 8) | head[k];
      head.clear();
    }
    return n;
  }
  void pump_down() {
    server.async_read_some(boost::asio::buffer(down), [self = shared_from_this()](beast::error_code ec, size_t n) {
      if (ec) return self->close();
      const size_t pass = self->cut_at_frame ? self->passable(self->down.data(), n) : n;
      boost::asio::async_write(self->client, boost::asio::buffer(self->down, pass),
                               [self, cut = pass < n](beast::error_code ec2, size_t) {
                                 if (ec2 || cut) return self->close();
                                 self->pump_down();
                               });
    });
  }
};

CuttingProxy::CuttingProxy(uint16_t dealer_port, int cut_at_frame)
    : acceptor_(ioc_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)),
      dealer_port_(dealer_port),
      cut_at_frame_(cut_at_frame) {
  port_ = acceptor_.local_endpoint().port();
  accept();
  thread_ = std::thread([this] { ioc_.run(); });
}

CuttingProxy::~CuttingProxy() {
  ioc_.stop();
  thread_.join();
}

void CuttingProxy::accept() {
  acceptor_.async_accept([this](beast::error_code ec, tcp::socket client) {
    if (ec) return;
    tcp::socket server(ioc_);
    server.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), dealer_port_), ec);
    if (!ec) {
      const int cut = connections_++ == 0 ? cut_at_frame_ : 0;
      auto pipe = std::make_shared<Pipe>(std::move(client), std::move(server), cut);
      pipe->pump_up();
      pipe->pump_down();
    }
    accept();
  });
}

namespace {
// The bit size each session was created with, so that the harness's parties state what the
// test's operator asked for (a party states its bit size; 64 unless told).
std::mutex session_bits_mutex;
std::map<std::string, size_t> session_bits;
}  // namespace

void remember_bits(const std::string& session, size_t bits) {
  std::lock_guard lock(session_bits_mutex);
  session_bits[session] = bits;
}

size_t bits_of(const std::string& session) {
  std::lock_guard lock(session_bits_mutex);
  const auto it = session_bits.find(session);
  return it == session_bits.end() ? 64 : it->second;
}

client::PartyValues stated(const std::string& session, uint64_t value, const Scalar& blinding) {
  return client::PartyValues{{value}, {blinding}, std::nullopt, bits_of(session)};
}

std::string create_session(const DealerProcess& dealer, size_t bits, size_t parties, uint32_t round_timeout_ms) {
  auto created = client::create_session(dealer.endpoint(), {bits, parties, "integration", round_timeout_ms, {}, {}});
  REQUIRE_MESSAGE(created.ok(), client::describe(created.error()));
  remember_bits(created->session_id, bits);
  return created->session_id;
}

Outcomes run_parties(const DealerProcess& dealer, const std::string& session, const std::vector<uint64_t>& values,
                     std::chrono::milliseconds timeout,
                     const std::vector<std::shared_ptr<const wire::Identity>>& identities) {
  std::vector<client::Options> options(std::max<size_t>(1, values.size()));
  for (size_t i = 0; i < options.size(); ++i) {
    options[i].timeout = timeout;
    if (i < identities.size()) options[i].identity = identities[i];
  }
  return run_parties_at(dealer.endpoint(), session, values, options);
}

Outcomes run_parties_at(const client::Endpoint& endpoint, const std::string& session,
                        const std::vector<uint64_t>& values, const std::vector<client::Options>& options) {
  boost::asio::io_context ioc;
  Outcomes out;
  out.results.resize(values.size(), client::ClientError{client::ClientErrorKind::Transport, "not run", {}});
  SystemRandom rng;
  for (size_t i = 0; i < values.size(); ++i)
    client::async_join_and_prove(ioc, endpoint, session, stated(session, values[i], Scalar::random(rng)),
                                 options[std::min(i, options.size() - 1)],
                                 [&out, i](auto r) { out.results[i] = std::move(r); });
  ioc.run();
  return out;
}

void check_all_succeeded(const Outcomes& o, size_t m) {
  std::vector<uint8_t> proof;
  std::set<size_t> positions;
  for (const auto& r : o.results) {
    REQUIRE_MESSAGE(r.ok(), client::describe(r.error()));
    positions.insert(r->position);
    const auto bytes = r->result.proof.to_bytes();
    if (proof.empty()) proof = bytes;
    CHECK(bytes == proof);  // everyone received the same proof
  }
  CHECK(positions.size() == m);
}

void check_aborted_with_blame(std::thread& honest, const Outcomes& o, std::vector<size_t> blamed) {
  honest.join();
  for (const auto& r : o.results) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == client::ClientErrorKind::Aborted);
    CHECK(r.error().blamed == blamed);
  }
}

Seated join_raw(const DealerProcess& dealer, const std::string& session, const wire::Identity* identity) {
  Seated s{std::make_unique<RawParty>(dealer.port()), {}};
  s.raw().send(s.raw().join_message(session, {}, identity));
  auto reply = s.raw().receive();
  REQUIRE(reply.has_value());
  if (auto* abort = std::get_if<wire::AbortMsg>(&*reply)) FAIL("join refused: " << abort->reason);
  REQUIRE(std::holds_alternative<wire::JoinedMsg>(*reply));
  s.joined = std::get<wire::JoinedMsg>(*reply);
  return s;
}

ManualParty commit_manually(Seated& seated, uint64_t value) {
  static const PedersenGens pc;
  const mpc::SessionParams params{seated.joined.bits, seated.joined.session_positions, seated.joined.transcript_label};
  ManualParty m{std::make_unique<BulletproofGens>(params.bits, params.padded_m()), std::nullopt};
  SystemRandom rng;
  auto party = mpc::PartyAwaitingPosition::create(*m.gens, pc, params, value, Scalar::random(rng));
  REQUIRE(party.ok());
  auto r1 = std::move(*party).assign_position(seated.joined.position);
  REQUIRE(r1.ok());
  seated.raw().send(r1->second);
  m.awaiting_bits.emplace(std::move(r1->first));
  return m;
}

std::pair<mpc::PartyAwaitingResult, ProofShare> answer_challenges(Seated& seated, ManualParty& manual) {
  auto bit_challenge = seated.raw().receive();
  REQUIRE(bit_challenge.has_value());
  auto r2 = std::move(*manual.awaiting_bits).apply_challenge(std::get<mpc::BitChallengeMsg>(*bit_challenge));
  REQUIRE(r2.ok());
  seated.raw().send(r2->second);
  auto poly_challenge = seated.raw().receive();
  REQUIRE(poly_challenge.has_value());
  auto r3 = std::move(r2->first).apply_challenge(std::get<mpc::PolyChallengeMsg>(*poly_challenge));
  REQUIRE(r3.ok());
  return {std::move(r3->first), std::move(r3->second)};
}

void wait_for_seated(const DealerProcess& dealer, int count) {
  const std::string want = "bp_parties_connected " + std::to_string(count) + "\n";
  for (int i = 0; i < 400; ++i) {
    if (http_get(dealer.port(), "/metrics").second.find(want) != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  FAIL("the dealer never had " << count << " parties seated");
}

}  // namespace bp::test
