// The blocking forms: each runs the asynchronous one on an io_context of its own.
#include <optional>

#include "bp/client/party_client.hpp"
#include "conversation.hpp"

namespace bp::client {

namespace {
template <class T, class Start>
ClientResult<T> run_blocking(Start&& start) {
  boost::asio::io_context ioc;
  std::optional<ClientResult<T>> out;
  // The library's handlers let nothing out; this is the last net (an allocation that fails
  // outside them), so a blocking call never throws either.
  try {
    start(ioc, [&out](ClientResult<T> r) { out.emplace(std::move(r)); });
    ioc.run();
  } catch (const std::exception& e) {
    if (!out) return detail::internal_error(e);
  }
  if (!out) return ClientError{ClientErrorKind::Transport, "the exchange ended without a result", {}};
  return std::move(*out);
}
}  // namespace

ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, uint64_t value,
                                          const Scalar& blinding, const Options& options) {
  return run_blocking<PartyOutcome>([&](boost::asio::io_context& ioc, auto handler) {
    async_join_and_prove(ioc, dealer, session_id, value, blinding, options, std::move(handler));
  });
}

ClientResult<PartyOutcome> join_and_prove(const Endpoint& dealer, const std::string& session_id, PartyValues values,
                                          const Options& options) {
  return run_blocking<PartyOutcome>([&](boost::asio::io_context& ioc, auto handler) {
    async_join_and_prove(ioc, dealer, session_id, std::move(values), options, std::move(handler));
  });
}

ClientResult<GadgetOutcome> join_gadget_session(const Endpoint& dealer, const std::string& session_id,
                                                PartyGadget gadget, const Options& options) {
  return run_blocking<GadgetOutcome>([&](boost::asio::io_context& ioc, auto handler) {
    async_join_gadget_session(ioc, dealer, session_id, std::move(gadget), options, std::move(handler));
  });
}

ClientResult<SessionInfo> create_session(const Endpoint& dealer, const SessionRequest& request,
                                         const Options& options) {
  return run_blocking<SessionInfo>([&](boost::asio::io_context& ioc, auto handler) {
    async_create_session(ioc, dealer, request, options, std::move(handler));
  });
}

ClientResult<SessionListing> manage_sessions(const Endpoint& dealer, const std::vector<std::string>& cancel,
                                             const Options& options) {
  return run_blocking<SessionListing>([&](boost::asio::io_context& ioc, auto handler) {
    async_manage_sessions(ioc, dealer, cancel, options, std::move(handler));
  });
}

}  // namespace bp::client
