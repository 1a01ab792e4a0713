// A gadget seat as a scripted dealer offers it, and the party's first answer to it: what the
// party sends after a seat (its first phase, or its withdrawal) and how its join ends.
#pragma once

#include <string>
#include <vector>

#include "bp/client/party_client.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "scripted_dealer.hpp"

namespace bp::test {

inline const std::string kScriptedSession(32, 'c');

// Seat `seat` of a gadget session of `list` (its label over `label_session`'s id).
inline wire::JoinedMsg gadget_seat(const std::string& list, size_t seat,
                                   const std::string& label_session = kScriptedSession) {
  wire::JoinedMsg joined;
  joined.position = seat;
  joined.bits = 0;
  auto parsed = GadgetList::parse(list);
  joined.session_positions = parsed ? parsed->items().size() : 1;
  joined.gadgets = list;
  joined.transcript_label = mpc::gadget_session_label(label_session, list, "fake");
  joined.resume_token.assign(16, 1);
  return joined;
}

struct GadgetAnswer {
  std::vector<uint8_t> reply;  // the party's first frame after the seat
  client::ClientResult<client::GadgetOutcome> outcome =
      client::ClientError{client::ClientErrorKind::Transport, "not run", {}};
};

inline GadgetAnswer gadget_answer_to(const wire::JoinedMsg& offer, client::PartyGadget input,
                                     const client::Options& options = quick_options()) {
  GadgetAnswer answer;
  {
    ScriptedDealer dealer([&](Connection& c, int index) {
      if (index != 0) return;
      c.hello(dealer.key, wire::kWireMinorVersion);
      if (!c.receive()) return;
      c.send(offer);
      answer.reply = c.receive_bytes();
    });
    answer.outcome = client::join_gadget_session(dealer.endpoint(), kScriptedSession, std::move(input), options);
  }
  return answer;
}

}  // namespace bp::test
