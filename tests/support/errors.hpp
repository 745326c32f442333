// SPDX-License-Identifier: Apache-2.0
// Checks that a call raises the right chunked::Error subclass with a message that names what was
// given and what was expected.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

namespace chunked::test {

/// f() must throw exactly an E (or a subclass) whose message contains every word.
template <class E, class F>
void expect_error(F&& f, std::initializer_list<std::string_view> words) {
  try {
    f();
    ADD_FAILURE() << "no exception thrown; expected " << ::testing::internal::GetTypeName<E>();
  } catch (const E& e) {
    const std::string message = e.what();
    for (std::string_view w : words)
      EXPECT_NE(message.find(w), std::string::npos)
          << "message \"" << message << "\" does not mention \"" << w << "\"";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected " << ::testing::internal::GetTypeName<E>()
                  << ", got another exception: " << e.what();
  }
}

} // namespace chunked::test
