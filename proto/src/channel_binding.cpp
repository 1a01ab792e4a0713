#include "bp/wire/channel_binding.hpp"

#include <openssl/ssl.h>

#include <string_view>

namespace bp::wire {

bool export_channel_binding(ssl_st* ssl, ChannelContext& channel) {
  channel.channel_binding.assign(kChannelBindingBytes, 0);
  const std::string_view label = kTlsExporterLabel;
  if (SSL_export_keying_material(ssl, channel.channel_binding.data(), channel.channel_binding.size(), label.data(),
                                 label.size(), nullptr, 0, 0) == 1)
    return true;
  channel.channel_binding.clear();
  return false;
}

}  // namespace bp::wire
