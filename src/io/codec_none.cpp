// SPDX-License-Identifier: Apache-2.0
// The "none" codec: chunks stored as their raw bytes.
#include "io/codec.hpp"

#include <cstring>

namespace chunked::io {

namespace {
class NoneCodec final : public Codec {
public:
  std::size_t max_encoded(std::size_t raw_bytes) const override { return raw_bytes; }
  std::size_t encode_into(std::string_view raw, char* out) const override {
    if (!raw.empty())
      std::memcpy(out, raw.data(), raw.size());
    return raw.size();
  }
  void decode(std::string_view stored, void* out, std::size_t size,
              std::string_view where) const override {
    if (stored.size() != size)
      corrupt_chunk(where, "uncompressed",
                    std::to_string(stored.size()) + " bytes stored, " + std::to_string(size) +
                        " expected");
    std::memcpy(out, stored.data(), size);
  }
};
} // namespace

std::unique_ptr<const Codec> make_none_codec() { return std::make_unique<NoneCodec>(); }

} // namespace chunked::io
