#include "sessions.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <cmath>
#include <mutex>
#include <thread>

#include "bp/random.hpp"

namespace bp::netbench {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(samples.size())));
  return samples[std::min(samples.size() - 1, rank == 0 ? 0 : rank - 1)];
}

LoadRun keep_in_flight(const client::Endpoint& dealer, size_t bits, size_t m, size_t in_flight, double seconds,
                       const client::Options& options, const client::LinkEmulation& link) {
  LoadRun run;
  std::mutex mutex;
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + std::chrono::duration<double>(seconds);
  std::vector<std::thread> drivers;
  for (size_t k = 0; k < in_flight; ++k)
    drivers.emplace_back([&] {
      while (std::chrono::steady_clock::now() < deadline) {
        const auto session = network_session(dealer, bits, m, options, link);
        std::lock_guard lock(mutex);
        if (session)
          run.latencies_ms.push_back(session->wall_ms);
        else
          ++run.failed;
      }
    });
  for (auto& d : drivers) d.join();
  run.seconds = ms_since(t0) / 1000;
  return run;
}

std::optional<NetRun> network_session(const client::Endpoint& dealer, size_t bits, size_t m,
                                      const client::Options& options, const client::LinkEmulation& link) {
  const auto t0 = std::chrono::steady_clock::now();
  auto created = client::create_session(dealer, {bits, m, "netbench", 60000, {}, {}});
  if (!created) return std::nullopt;
  boost::asio::io_context ioc;
  SystemRandom rng;
  size_t ok = 0, up = 0, down = 0;
  for (size_t j = 0; j < m; ++j)
    client::async_join_and_prove(ioc, dealer, created->session_id,
                                 client::PartyValues{{j + 1}, {Scalar::random(rng)}, std::nullopt, bits}, options, link,
                                 [&](auto r) {
                                   if (!r) return;
                                   ++ok;
                                   up = r->bytes_sent;
                                   down = r->bytes_received;
                                 });
  ioc.run();
  if (ok != m) return std::nullopt;
  return NetRun{ms_since(t0), up, down};
}

std::optional<NetRun> network_session_of(const client::Endpoint& dealer, size_t bits,
                                         const std::vector<uint32_t>& values_per_party, const client::Options& options,
                                         const client::LinkEmulation& link) {
  const auto t0 = std::chrono::steady_clock::now();
  client::SessionRequest request{bits, values_per_party.size(), "netbench", 60000, {}, {}};
  request.values_per_party = values_per_party;
  auto created = client::create_session(dealer, request);
  if (!created) return std::nullopt;
  boost::asio::io_context ioc;
  SystemRandom rng;
  size_t ok = 0, up = 0, down = 0, most = 0;
  for (uint32_t k : values_per_party) {
    client::PartyValues input;
    input.bits = bits;
    for (uint32_t i = 0; i < k; ++i) {
      input.values.push_back(1000 + i);
      input.blindings.push_back(Scalar::random(rng));
    }
    client::async_join_and_prove(ioc, dealer, created->session_id, std::move(input), options, link, [&, k](auto r) {
      if (!r) return;
      ++ok;
      if (k < most) return;
      most = k;
      up = r->bytes_sent;
      down = r->bytes_received;
    });
  }
  ioc.run();
  if (ok != values_per_party.size()) return std::nullopt;
  return NetRun{ms_since(t0), up, down};
}

}  // namespace bp::netbench
