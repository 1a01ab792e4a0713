#include "gadgets.hpp"

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bp/random.hpp"
#include "sessions.hpp"

namespace bp::netbench {

namespace {

// A statement that holds for `gadget`: a range:64 seat any value, a shuffle:8 seat eight
// values and the same eight in reverse.
client::PartyGadget statement_for(const std::string& gadget, SystemRandom& rng, uint64_t seed) {
  client::PartyGadget p{gadget, {}, {}};
  if (gadget == "range:64") {
    p.values = {seed * 0x9e3779b97f4a7c15ULL};
  } else {
    for (uint64_t k = 0; k < 8; ++k) p.values.push_back(seed * 100 + k);
    for (uint64_t k = 8; k-- > 0;) p.values.push_back(seed * 100 + k);
  }
  for (size_t k = 0; k < p.values.size(); ++k) p.blindings.push_back(Scalar::random(rng));
  return p;
}

std::optional<NetRun> gadget_session(const client::Endpoint& dealer, const std::string& seat, size_t parties) {
  const auto t0 = std::chrono::steady_clock::now();
  client::SessionRequest request;
  request.parties = parties;
  request.label = "netbench";
  request.round_timeout_ms = 60000;
  for (size_t j = 0; j < parties; ++j) request.gadgets += (j == 0 ? "" : ";") + seat;
  auto created = client::create_session(dealer, request);
  if (!created) return std::nullopt;
  boost::asio::io_context ioc;
  SystemRandom rng;
  size_t ok = 0, up = 0, down = 0;
  for (size_t j = 0; j < parties; ++j)
    client::async_join_gadget_session(ioc, dealer, created->session_id, statement_for(seat, rng, j + 1), {},
                                      [&](auto r) {
                                        if (!r) return;
                                        ++ok;
                                        up = r->bytes_sent;
                                        down = r->bytes_received;
                                      });
  ioc.run();
  if (ok != parties) return std::nullopt;
  return NetRun{ms_since(t0), up, down};
}

}  // namespace

int run_gadget_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick) {
  std::printf(
      "| parties | seats | network session ms | dealer CPU ms per session | bytes up (one party) | "
      "bytes down (one party) |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  const std::vector<size_t> sizes = quick ? std::vector<size_t>{2} : std::vector<size_t>{2, 4, 16};
  const int runs = quick ? 1 : 5;
  for (size_t parties : sizes)
    for (const std::string seat : {"range:64", "shuffle:8"}) {
      double wall = 0, cpu = 0;
      NetRun last{};
      // One session first, unmeasured: generators and tables are built on first use.
      for (int r = -1; r < runs; ++r) {
        const double cpu_before = dealer_cpu_ms();
        auto run = gadget_session(dealer, seat, parties);
        if (!run) {
          std::fprintf(stderr, "error: a gadget session of %zu %s seats failed\n", parties, seat.c_str());
          return 1;
        }
        if (r < 0) continue;
        cpu += dealer_cpu_ms() - cpu_before;
        wall += run->wall_ms;
        last = *run;
      }
      std::printf("| %zu | %s | %.1f | %.2f | %zu | %zu |\n", parties, seat.c_str(), wall / runs, cpu / runs, last.up,
                  last.down);
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace bp::netbench
