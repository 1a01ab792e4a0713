#include "net/admission.hpp"

namespace bp::server {

AdmissionTicket& AdmissionTicket::operator=(AdmissionTicket&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = other.owner_;
    address_ = std::move(other.address_);
    status_ = other.status_;
    vouched_ = other.vouched_;
    reason_ = std::move(other.reason_);
    other.owner_ = nullptr;
  }
  return *this;
}

void AdmissionTicket::release() {
  if (owner_) owner_->release(address_, refused(), vouched_);
  owner_ = nullptr;
}

void AdmissionTicket::vouch() {
  if (!owner_ || refused() || vouched_) return;
  vouched_ = true;
  owner_->vouch(address_);
}

Admission::Admission(size_t max_connections, size_t max_per_address, uint32_t max_connects_per_s)
    : max_connections_(max_connections), max_per_address_(max_per_address), connects_(max_connects_per_s) {}

std::unique_ptr<AdmissionTicket> Admission::admit(const std::string& address) {
  std::lock_guard lock(mutex_);
  auto ticket = std::make_unique<AdmissionTicket>();
  ticket->owner_ = this;
  ticket->address_ = address;
  if (connects_.over_limit(address)) {
    ticket->status_ = 429;
    ticket->reason_ =
        "too many new connections from your address (at most " + std::to_string(connects_.limit()) + " per second)";
  } else if (open_ >= max_connections_) {
    ticket->status_ = 503;
    ticket->reason_ = "dealer at capacity: " + std::to_string(open_) + " connections open";
  } else if (auto it = per_address_.find(address); it != per_address_.end() && it->second >= max_per_address_) {
    ticket->status_ = 503;
    ticket->reason_ = "too many connections from your address (at most " + std::to_string(max_per_address_) + ")";
  }
  if (ticket->refused()) {
    if (refusals_ >= kRefusalBudget) {
      ticket->owner_ = nullptr;
      return nullptr;
    }
    ++refusals_;
    return ticket;
  }
  ++open_;
  ++per_address_[address];
  return ticket;
}

void Admission::release(const std::string& address, bool refused, bool vouched) {
  std::lock_guard lock(mutex_);
  if (refused) {
    --refusals_;
    return;
  }
  --open_;
  if (!vouched) leave_address(address);  // a vouched one left its address then
}

void Admission::vouch(const std::string& address) {
  std::lock_guard lock(mutex_);
  leave_address(address);
}

void Admission::leave_address(const std::string& address) {
  if (auto it = per_address_.find(address); it != per_address_.end() && --it->second == 0) per_address_.erase(it);
}

size_t Admission::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

}  // namespace bp::server
