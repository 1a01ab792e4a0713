// Who may open a connection: at most max_connections sockets in all, max_per_address from
// one address, and max_connects_per_s new ones per address per second. A connection over a
// limit is not dropped without a word: it gets a refusal ticket, so it is answered with an
// HTTP status and a one-line reason. Refusals hold sockets too, so at most kRefusalBudget are
// in flight; past that a connection is closed at once (and counted).
//
// The per-address cap bounds what strangers hold. A connection whose signed join a session
// seated (its key is one the operator listed) is vouched for and leaves its address's
// count: a backend running hundreds of sessions from one address is then bounded by the
// seats its operators gave its keys (one connection each) and by max_connections, and a
// stranger's sockets still by max_per_address.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "observability/per_second_counter.hpp"

namespace bp::server {

class Admission;

// One admitted or refused connection's claim on a slot; released when the last copy of the
// connection that owns it goes (it moves from the HTTP connection to the WebSocket one).
class AdmissionTicket {
 public:
  AdmissionTicket() = default;
  AdmissionTicket(AdmissionTicket&& other) noexcept { *this = std::move(other); }
  AdmissionTicket& operator=(AdmissionTicket&& other) noexcept;
  AdmissionTicket(const AdmissionTicket&) = delete;
  AdmissionTicket& operator=(const AdmissionTicket&) = delete;
  ~AdmissionTicket() { release(); }

  // The connection's party was seated under a key the session lists: it stops counting
  // against its address (once; a refused ticket is never vouched for).
  void vouch();

  bool refused() const { return status_ != 0; }
  int status() const { return status_; }  // 503 or 429 when refused
  const std::string& reason() const { return reason_; }
  const std::string& address() const { return address_; }

 private:
  friend class Admission;
  void release();
  Admission* owner_ = nullptr;
  std::string address_;
  int status_ = 0;
  bool vouched_ = false;
  std::string reason_;
};

class Admission {
 public:
  static constexpr size_t kRefusalBudget = 64;

  Admission(size_t max_connections, size_t max_per_address, uint32_t max_connects_per_s);

  // A ticket (admitted or refused), or nullptr when even the refusal budget is spent.
  std::unique_ptr<AdmissionTicket> admit(const std::string& address);

  size_t open() const;
  size_t max_connections() const { return max_connections_; }
  void lower_max_connections(size_t n) { max_connections_ = n; }

 private:
  friend class AdmissionTicket;
  void release(const std::string& address, bool refused, bool vouched);
  void vouch(const std::string& address);
  void leave_address(const std::string& address);  // mutex_ held

  size_t max_connections_;
  const size_t max_per_address_;
  mutable std::mutex mutex_;
  size_t open_ = 0;
  size_t refusals_ = 0;
  std::unordered_map<std::string, size_t> per_address_;  // admitted, not vouched for; no zero entries
  PerSecondCounter connects_;
};

}  // namespace bp::server
