// SPDX-License-Identifier: Apache-2.0
// The storage metadata's JSON reader and writer: RFC 8259, Python's NaN tokens, exact numbers,
// key order, and errors that say where.
#include "io/json.hpp"
#include "support/errors.hpp"

#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {

using chunked::ValueError;
using chunked::io::Json;
using chunked::test::expect_error;

TEST(IoJson, ReadsEveryKindOfValue) {
  const Json j = Json::parse(R"( {"a": [1, -2.5, true, false, null], "b": {"c": "d"}} )");
  const auto& a = j.find("a")->as_array("a");
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].as_int("x"), 1);
  EXPECT_EQ(a[1].as_double("x"), -2.5);
  EXPECT_TRUE(a[2].as_bool("x"));
  EXPECT_FALSE(a[3].as_bool("x"));
  EXPECT_TRUE(a[4].is_null());
  EXPECT_EQ(j.find("b")->find("c")->as_string("c"), "d");
  EXPECT_EQ(j.find("z"), nullptr);
}

TEST(IoJson, IntegersAreExactInInt64AndLargerOnesAreDoubles) {
  EXPECT_EQ(Json::parse("9223372036854775807").as_int("x"),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(Json::parse("-9223372036854775808").as_int("x"),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_TRUE(Json::parse("9223372036854775808").is_double());
  EXPECT_TRUE(Json::parse("1e400").is_double());
  EXPECT_TRUE(std::isinf(Json::parse("1e400").as_double("x")));
}

TEST(IoJson, DoublesRoundTripExactly) {
  for (const double d : {0.1, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, -0.0, 1e22, 123456.0}) {
    const Json back = Json::parse(Json(d).dump());
    ASSERT_TRUE(back.is_double()) << Json(d).dump();
    const double e = back.as_double("x");
    EXPECT_EQ(std::memcmp(&d, &e, sizeof d), 0) << Json(d).dump();
  }
  EXPECT_EQ(Json(2.0).dump(), "2.0");
}

TEST(IoJson, NonFiniteTokensAsPythonWritesThem) {
  EXPECT_TRUE(std::isnan(Json::parse("NaN").as_double("x")));
  EXPECT_EQ(Json::parse("Infinity").as_double("x"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Json::parse("[-Infinity]").as_array("x")[0].as_double("x"),
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Json(std::numeric_limits<double>::quiet_NaN()).dump(), "NaN");
  EXPECT_EQ(Json(-std::numeric_limits<double>::infinity()).dump(), "-Infinity");
}

TEST(IoJson, StringsWithEscapesAndSurrogatePairs) {
  EXPECT_EQ(Json::parse(R"("a\"b\\c\/d\b\f\n\r\t")").as_string("x"), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(Json::parse(R"("\u00e9\u20ac")").as_string("x"), "\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(Json::parse(R"("\ud83d\ude00")").as_string("x"), "\xf0\x9f\x98\x80");
  const std::string s = "q\"\\\n\x01\xc3\xa9";
  EXPECT_EQ(Json::parse(Json(s).dump()).as_string("x"), s);
}

TEST(IoJson, ObjectsKeepTheirKeyOrder) {
  const std::string text = R"({"z": 1, "a": 2, "m": {"y": [], "b": {}}})";
  EXPECT_EQ(Json::parse(text).dump(), text);
  Json j = Json::parse(text);
  const Json copy = j;
  j.set("a", Json(5));
  j.set("new", Json("x"));
  EXPECT_EQ(j.dump(), R"({"z": 1, "a": 5, "m": {"y": [], "b": {}}, "new": "x"})");
  EXPECT_EQ(copy.dump(), text) << "a copy is not changed by set()";
  EXPECT_EQ(Json::parse(Json::parse(text).dump(4)).dump(), text);
}

TEST(IoJson, BadInputNamesTheOffsetAndWhatWasExpected) {
  expect_error<ValueError>([] { Json::parse(""); }, {"offset 0", "a value"});
  expect_error<ValueError>([] { Json::parse("{\"a\" 1}"); }, {"offset 5", "':'"});
  expect_error<ValueError>([] { Json::parse("[1, 2"); }, {"',' or ']'"});
  expect_error<ValueError>([] { Json::parse("[1] x"); }, {"offset 4", "end of the text"});
  expect_error<ValueError>([] { Json::parse("\"abc"); }, {"closing"});
  expect_error<ValueError>([] { Json::parse("\"\\x\""); }, {"after '\\'"});
  expect_error<ValueError>([] { Json::parse("\"\\ud83d\""); }, {"low surrogate"});
  expect_error<ValueError>([] { Json::parse("\"\\ude00\""); }, {"high surrogate"});
  expect_error<ValueError>([] { Json::parse("\"a\nb\""); }, {"control character"});
  expect_error<ValueError>([] { Json::parse("01"); }, {"offset 1"});
  expect_error<ValueError>([] { Json::parse("-"); }, {"a digit"});
  expect_error<ValueError>([] { Json::parse("1."); }, {"a digit"});
  expect_error<ValueError>([] { Json::parse("tru"); }, {"a value"});
  expect_error<ValueError>([] { Json::parse(std::string(600, '[')); }, {"nested"});
  expect_error<ValueError>([] { Json::parse("{\"a\": 1}").as_array("shape"); },
                           {"shape must be an array, not an object"});
}

} // namespace
