// SPDX-License-Identifier: Apache-2.0
// render_report: the page around the trace. The page's styles and scripts live in
// src/runtime/report_page/ and are compiled into the library (chunked_embed_text), so that an
// installed library writes the same self-contained page.
#include "runtime/report.hpp"

#include "chunked_embedded_report_page.hpp"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace chunked::runtime {

namespace {

/// Text as HTML character data or attribute value: nothing in it can open or close markup.
void append_html_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
}

/// JSON text as the content of a <script type="application/json"> element. A script element ends
/// at the first "</script" whatever its type, and "<!--" changes how it is parsed, so every '<'
/// (with '>' and '&', for good measure) becomes its \u escape. Those characters only occur inside
/// JSON strings, where the escape reads back as the same character.
void append_script_data(std::string& out, std::string_view json) {
  for (const char c : json) {
    switch (c) {
    case '<':
      out += "\\u003c";
      break;
    case '>':
      out += "\\u003e";
      break;
    case '&':
      out += "\\u0026";
      break;
    default:
      out += c;
    }
  }
}

/// A JSON string literal for `text`, safe inside a script element as append_script_data's output.
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || c == '<' || c == '>' || c == '&') {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", u);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// The page's inputs other than the trace, for its scripts.
std::string input_json(const ReportInput& input) {
  const double rate = std::isfinite(input.copy_rate) && input.copy_rate > 0 ? input.copy_rate : 0;
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", rate);
  return std::string("{\"copy_rate\": ") + number +
         ", \"copy_rate_label\": " + json_string(input.copy_rate_label) + "}";
}

/// The embedded files whose names end with `extension`, in the order CMake lists them.
std::string embedded_files(std::string_view extension) {
  std::string text;
  for (std::size_t i = 0; i < chunked_embedded_report_page_count; ++i) {
    const std::string_view name = chunked_embedded_report_page_names[i];
    if (name.ends_with(extension)) {
      text += chunked_embedded_report_page_contents[i];
      text += '\n';
    }
  }
  return text;
}

void append_options(std::string& out, const ReportInput& input) {
  out += "<table id=\"options\">\n<thead><tr><th>Option</th><th>Value</th></tr></thead>\n<tbody>\n";
  for (const auto& [name, value] : input.options) {
    out += "<tr><td>";
    append_html_escaped(out, name);
    out += "</td><td>";
    append_html_escaped(out, value);
    out += "</td></tr>\n";
  }
  out += "</tbody>\n</table>\n";
}

// The parts of the page the scripts fill in are empty elements with ids; what needs no script
// (title, plan, options) is written here, so that it reads even where scripts do not run.
constexpr std::string_view body_sections = R"(<section id="stream-section">
<h2>Task stream</h2>
<div class="legend" id="stream-legend"></div>
<p class="hint">One row per host worker and GPU stream. Hover a span for its program, block and
bytes; drag across the stream to zoom in. <button id="reset-zoom" hidden>Show the whole run</button></p>
<div class="chart" id="stream"></div>
</section>
<section id="memory-section">
<h2>Memory over time</h2>
<div class="chart" id="memory"></div>
</section>
<section id="programs-section">
<h2>Time per block program</h2>
<table id="programs"></table>
<p class="note" id="rate-note"></p>
</section>
)";

} // namespace

std::string render_report(const ReportInput& input) {
  const std::string style = embedded_files(".css");
  const std::string script = embedded_files(".js");
  std::string page;
  page.reserve(style.size() + script.size() + input.trace_json.size() + input.plan.size() +
               std::size_t{4096});
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  append_html_escaped(page, input.title);
  page += "</title>\n<style>\n";
  page += style;
  page += "</style>\n</head>\n<body data-rendered=\"pending\">\n<header>\n<h1>";
  append_html_escaped(page, input.title);
  page += "</h1>\n<p id=\"summary\"></p>\n</header>\n<pre id=\"errors\"></pre>\n";
  page += body_sections;
  page += "<section id=\"plan-section\">\n<h2>Plan</h2>\n<pre id=\"plan\">";
  append_html_escaped(page, input.plan);
  page += "</pre>\n</section>\n<section id=\"options-section\">\n<h2>Options</h2>\n";
  append_options(page, input);
  page += "</section>\n<script type=\"application/json\" id=\"trace\">";
  append_script_data(page, input.trace_json.empty() ? "{\"traceEvents\": []}" : input.trace_json);
  page += "</script>\n<script type=\"application/json\" id=\"report-input\">";
  page += input_json(input);
  page += "</script>\n<script>\n";
  page += script;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

} // namespace chunked::runtime
