#include "bp/wire/auth.hpp"

#include <string_view>

#include "bp/wire/codec.hpp"
#include "bp/wire/messages.hpp"

namespace bp::wire {
namespace {

class Statement {
 public:
  explicit Statement(std::string_view tag) { field(tag); }
  Statement& field(std::span<const uint8_t> bytes) {
    const auto n = static_cast<uint32_t>(bytes.size());
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(n >> (8 * i)));
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  Statement& field(std::string_view text) {
    return field(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  Statement& number(uint64_t v) {
    std::array<uint8_t, 8> le{};
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
    return field(le);
  }
  Statement& channel(const ChannelContext& c) { return field(c.dealer_key).field(c.nonce).field(c.channel_binding); }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

}  // namespace

std::vector<uint8_t> join_statement(const ChannelContext& channel, const JoinSessionMsg& join,
                                    const PublicKey& party_key) {
  Statement s("bp-agg/v1 join");
  s.channel(channel).field(join.session_id).field(join.resume_token).field(party_key);
  // 1.3: a seat token is signed too, after the fields a 1.2 dealer signs (it never gets one).
  if (!join.seat_token.empty()) s.field(join.seat_token);
  return s.take();
}

std::vector<uint8_t> create_statement(const ChannelContext& channel, const CreateSessionMsg& create,
                                      const PublicKey& operator_key) {
  Statement s("bp-agg/v1 create");
  s.channel(channel).field(create.session_id);
  s.number(create.bits).number(create.parties).field(create.label).number(create.round_timeout_ms);
  s.number(create.allowed_parties.size());
  for (const auto& key : create.allowed_parties) s.field(key);
  s.field(operator_key);
  // 1.4: the values of each party and their bounds, after the fields a 1.3 dealer signs (so
  // one that would drop them finds the signature wrong and refuses).
  if (!create.values_per_party.empty() || !create.bounds.empty()) {
    s.number(create.values_per_party.size());
    for (uint32_t k : create.values_per_party) s.number(k);
    s.number(create.bounds.size());
    for (const auto& b : create.bounds) s.number(b.min).number(b.max ? 1 : 0).number(b.max.value_or(0));
  }
  // 1.7: a quorum, signed after what a 1.6 dealer signs (one that would ignore it refuses).
  if (create.min_parties != 0 || create.join_window_ms != 0) {
    s.field(std::string_view("quorum")).number(create.min_parties).number(create.join_window_ms);
    if (create.gadget_successors) s.field(std::string_view("gadget successors"));
  }
  return s.take();
}

std::vector<uint8_t> manage_statement(const ChannelContext& channel, const ManageSessionsMsg& manage,
                                      const PublicKey& operator_key) {
  Statement s("bp-agg/v1 manage");
  s.channel(channel).number(manage.cancel.size());
  for (const auto& id : manage.cancel) s.field(id);
  return s.field(operator_key).take();
}

std::vector<uint8_t> result_statement(const PublicKey& dealer_key, const std::string& session_id,
                                      const mpc::AggregationResult& result) {
  Statement s("bp-agg/v1 result");
  s.field(dealer_key).field(session_id).number(result.bits).field(result.label);
  s.number(result.commitments.size());
  for (const auto& c : result.commitments) s.field(c.bytes);
  return s.field(result.proof.to_bytes()).take();
}

std::vector<uint8_t> r1cs_result_statement(const PublicKey& dealer_key, const std::string& session_id,
                                           const R1CSResultMsg& result) {
  Statement s("bp-agg/v1 r1cs-result");
  s.field(dealer_key).field(session_id).field(result.gadgets).field(result.label);
  s.number(result.commitments.size());
  for (const auto& c : result.commitments) s.field(c.bytes);
  return s.field(result.proof.to_bytes()).take();
}

}  // namespace bp::wire
