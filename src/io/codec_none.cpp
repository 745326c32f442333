// SPDX-License-Identifier: Apache-2.0
// The "none" codec: chunks stored as their raw bytes.
#include "io/codec.hpp"

#include <cstring>

namespace chunked::io {

namespace {
class NoneCodec final : public Codec {
public:
  std::string encode(std::string_view raw) const override { return std::string(raw); }
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
