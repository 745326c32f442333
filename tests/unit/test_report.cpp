// SPDX-License-Identifier: Apache-2.0
// runtime::render_report: one self-contained page, with the trace intact inside it and every
// string from the trace, the plan and the options kept from acting as markup. (The page's
// scripts run in tests/report/, in a headless browser.)
#include "report/fixture.hpp"
#include "runtime/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace {

using chunked::runtime::render_report;
using chunked::runtime::ReportInput;
using chunked::test::fixture_report_input;

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// The text of the element that starts with `open`, up to the next `close`, as a browser reads
/// it (a script element ends at the first "</script", in any case); empty when absent.
std::string element_text(const std::string& page, std::string_view open, std::string_view close) {
  const auto start = page.find(open);
  if (start == std::string::npos)
    return {};
  const auto begin = start + open.size();
  const auto end = lower(page).find(lower(std::string(close)), begin);
  return end == std::string::npos ? std::string() : page.substr(begin, end - begin);
}

std::string trace_element(const std::string& page) {
  return element_text(page, R"(<script type="application/json" id="trace">)", "</script");
}

/// JSON text with the \u escapes of '<', '>' and '&' read back.
std::string unescape_markup(std::string text) {
  for (const auto& [escape, c] : {std::pair{"\\u003c", '<'}, {"\\u003e", '>'}, {"\\u0026", '&'}}) {
    for (auto at = text.find(escape); at != std::string::npos; at = text.find(escape, at))
      text.replace(at, 6, 1, c);
  }
  return text;
}

TEST(Report, IsOneHtmlDocument) {
  const std::string page = render_report(fixture_report_input());
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>\n")) << page.substr(0, 80);
  EXPECT_TRUE(page.ends_with("</html>\n"));
  EXPECT_EQ(count(page, "<html"), 1u);
  EXPECT_EQ(count(page, "<body"), 1u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
}

TEST(Report, RefersToNothingOutsideItself) {
  const std::string page = lower(render_report(fixture_report_input()));
  for (const char* reference : {"http://", "https://", "//cdn", " src=", " href=", "url(",
                                "@import", "fetch(", "xmlhttprequest"})
    EXPECT_EQ(page.find(reference), std::string::npos) << "the page names " << reference;
}

TEST(Report, InlinesItsStylesAndScripts) {
  const std::string page = render_report(fixture_report_input());
  const std::string style = element_text(page, "<style>\n", "</style>");
  EXPECT_NE(style.find("#errors"), std::string::npos);
  const std::string script = element_text(page, "<script>\n", "</script");
  for (const char* part : {"window.onerror", "function drawStream", "function drawMemory",
                           "function drawTable", "dataset.rendered = \"ok\""})
    EXPECT_NE(script.find(part), std::string::npos) << part;
  // Until the scripts say otherwise, the page has not rendered, and it has no errors.
  EXPECT_NE(page.find("<body data-rendered=\"pending\">"), std::string::npos);
  EXPECT_NE(page.find("<pre id=\"errors\"></pre>"), std::string::npos);
}

TEST(Report, EmbedsTheTraceUnchanged) {
  const ReportInput input = fixture_report_input();
  const std::string page = render_report(input);
  const std::string embedded = trace_element(page);
  EXPECT_EQ(embedded.find('<'), std::string::npos);
  EXPECT_EQ(unescape_markup(embedded), input.trace_json);
}

TEST(Report, NamesInTheTraceCannotCloseItsScript) {
  const ReportInput input = fixture_report_input();
  ASSERT_NE(input.trace_json.find("</script>"), std::string::npos) << "the fixture lost its test";
  const std::string page = render_report(input);
  // Three script elements (the trace, the other input, the code), each closed once: the name
  // in the trace neither closes one early nor opens another.
  const std::string folded = lower(page);
  EXPECT_EQ(count(folded, "<script"), 3u);
  EXPECT_EQ(count(folded, "</script"), 3u);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_NE(trace_element(page).find(R"(user fn \u003c/script\u003e\u003cscript\u003e)"),
            std::string::npos);

  ReportInput upper = input;
  upper.trace_json = R"({"traceEvents": [{"ph": "X", "name": "</SCRIPT >", "ts": 0, "dur": 1}]})";
  EXPECT_EQ(count(lower(render_report(upper)), "</script"), 3u);
}

TEST(Report, EscapesTheTitlePlanAndOptions) {
  const std::string page = render_report(fixture_report_input());
  EXPECT_NE(page.find("<title>chunked: sum &lt;fixture&gt; &amp; more</title>"), std::string::npos);
  EXPECT_NE(page.find("<h1>chunked: sum &lt;fixture&gt; &amp; more</h1>"), std::string::npos);
  const std::string plan = element_text(page, "<pre id=\"plan\">", "</pre>");
  EXPECT_EQ(plan, "program 0: normal · add · sum\n  4 blocks, where x &lt; y &amp;&amp; y &gt; z\n"
                  "program 1: sum\n  1 block\n");
  const std::string options = element_text(page, "<table id=\"options\">", "</table>");
  EXPECT_NE(options.find("<tr><td>num_threads</td><td>2</td></tr>"), std::string::npos);
  EXPECT_NE(options.find("<tr><td>report_path</td><td>run&lt;1&gt;.html</td></tr>"),
            std::string::npos);
  EXPECT_NE(options.find("<tr><td>backend</td><td>Cuda</td></tr>"), std::string::npos);
  EXPECT_EQ(page.find("<fixture>"), std::string::npos);
  EXPECT_EQ(page.find("run<1>"), std::string::npos);
}

TEST(Report, PassesTheCopyRateToTheScripts) {
  ReportInput input = fixture_report_input();
  input.copy_rate_label = "memcpy \"quoted\" </script> \\ \n";
  const auto input_element = [](const std::string& page) {
    return element_text(page, R"(<script type="application/json" id="report-input">)", "</script");
  };
  EXPECT_EQ(input_element(render_report(input)),
            R"({"copy_rate": 10000000000, "copy_rate_label": )"
            R"("memcpy \"quoted\" \u003c/script\u003e \\ \u000a"})");
  input.copy_rate = -1;
  EXPECT_NE(input_element(render_report(input)).find(R"("copy_rate": 0,)"), std::string::npos);
}

TEST(Report, AnEmptyTraceStillMakesAPage) {
  ReportInput input;
  input.title = "empty";
  const std::string page = render_report(input);
  EXPECT_EQ(trace_element(page), R"({"traceEvents": []})");
  EXPECT_NE(page.find("<table id=\"options\">"), std::string::npos);
  EXPECT_EQ(element_text(page, "<pre id=\"plan\">", "</pre>"), "");
}

} // namespace
