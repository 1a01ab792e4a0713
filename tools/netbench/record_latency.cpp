#include "record_latency.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "raw_socket.hpp"

namespace bp::netbench {
namespace {

struct Buckets {
  std::vector<std::pair<double, uint64_t>> cumulative;  // (upper bound s, count <= it)
  uint64_t count = 0;
};

double quantile_ms(const Buckets& b, double q) {
  if (b.count == 0) return 0;
  const double rank = q * static_cast<double>(b.count);
  double lower = 0;
  uint64_t below = 0;
  for (const auto& [upper, n] : b.cumulative) {
    if (static_cast<double>(n) >= rank) {
      const double within = n == below ? 0 : (rank - static_cast<double>(below)) / static_cast<double>(n - below);
      return 1000 * (lower + (upper - lower) * within);
    }
    lower = upper;
    below = n;
  }
  return 1000 * lower;  // past the last finite bucket
}

}  // namespace

std::map<std::string, RecordCalls> record_calls(const std::string& text) {
  std::map<std::string, Buckets> by_operation;
  std::istringstream in(text);
  std::string line;
  const std::string prefix = "bp_record_call_seconds_bucket{operation=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t name_end = line.find('"', prefix.size());
    const std::string operation = line.substr(prefix.size(), name_end - prefix.size());
    const size_t le = line.find("le=\"", name_end);
    const size_t le_end = line.find('"', le + 4);
    const std::string bound = line.substr(le + 4, le_end - le - 4);
    const uint64_t n = std::strtoull(line.c_str() + line.rfind(' ') + 1, nullptr, 10);
    auto& b = by_operation[operation];
    if (bound == "+Inf")
      b.count = n;
    else
      b.cumulative.emplace_back(std::strtod(bound.c_str(), nullptr), n);
  }
  std::map<std::string, RecordCalls> out;
  for (const auto& [operation, b] : by_operation)
    out[operation] = RecordCalls{b.count, quantile_ms(b, 0.5), quantile_ms(b, 0.99)};
  return out;
}

double counter_value(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.size() > name.size() && line.rfind(name, 0) == 0 && line[name.size()] == ' ')
      return std::strtod(line.c_str() + name.size() + 1, nullptr);
  return 0;
}

std::string fetch_metrics(uint16_t port) {
  const int fd = connect_from("127.0.0.1", port, std::chrono::milliseconds(5000));
  if (fd < 0) return "";
  send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string answer = read_until_close(fd, 1 << 20);
  ::close(fd);
  return answer;
}

}  // namespace bp::netbench
