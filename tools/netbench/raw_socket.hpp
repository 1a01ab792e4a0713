// Plain blocking sockets with timeouts, for traffic the benchmark sends byte by byte (the
// hostile kinds, and a GET of the dealer's /metrics).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace bp::netbench {

// A blocking TCP socket from `from` to 127.0.0.1:port whose reads and writes give up after
// `timeout`; -1 if it cannot connect.
int connect_from(const std::string& from, uint16_t port, std::chrono::milliseconds timeout);
bool send_all(int fd, const std::string& bytes);
// Everything until the peer closes, a timeout, or `max` bytes.
std::string read_until_close(int fd, size_t max = 1 << 16);

}  // namespace bp::netbench
