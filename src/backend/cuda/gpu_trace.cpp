// SPDX-License-Identifier: Apache-2.0
// GpuTimeline and GpuSpan: kernels and copies timed by CUDA events, and NVTX task ranges.
#include "backend/cuda/gpu_trace.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>

namespace chunked::cuda {

namespace {
thread_local GpuTimeline* current = nullptr;
thread_local std::uint32_t current_task = 0;
} // namespace

GpuTimeline::GpuTimeline(runtime::Trace* trace) : trace_(trace) {}

GpuTimeline::~GpuTimeline() {
  if (!on() || collected_)
    return;
  try {
    collect();
  } catch (...) { // NOLINT(bugprone-empty-catch): the computation's own error is the one raised
  }
}

void GpuTimeline::add_stream(const Stream& stream, int index) {
  if (!on())
    return;
  std::lock_guard lock(mutex_);
  streams_.emplace_back(stream.get(), index);
  trace_->name_stream(stream.device(), index);
  const auto known = std::find_if(origins_.begin(), origins_.end(),
                                  [&](const Origin& o) { return o.device == stream.device(); });
  if (known != origins_.end())
    return;
  auto origin = std::make_unique<Event>(stream.device(), true);
  origin->record(stream);
  origin->synchronize();
  origins_.push_back({stream.device(), std::move(origin), trace_->now()});
}

GpuTimeline::Scope::Scope(GpuTimeline& timeline, std::uint32_t task, const char* kind)
    : previous_(current), previous_task_(current_task) {
  if (timeline.on())
    current = &timeline;
  current_task = task;
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = kind;
  attributes.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  attributes.payload.ullValue = task;
  nvtxRangePushEx(&attributes);
}

GpuTimeline::Scope::~Scope() {
  nvtxRangePop();
  current = previous_;
  current_task = previous_task_;
}

std::size_t GpuTimeline::begin(const Stream& stream, std::string name, const char* category,
                               std::uint64_t bytes) {
  auto start = std::make_unique<Event>(stream.device(), true);
  start->record(stream);
  std::lock_guard lock(mutex_);
  spans_.push_back({stream.device(), stream.get(), std::move(name), category, current_task, bytes,
                    std::move(start), nullptr});
  return spans_.size() - 1;
}

void GpuTimeline::end(std::size_t span, const Stream& stream) {
  auto end = std::make_unique<Event>(stream.device(), true);
  end->record(stream);
  std::lock_guard lock(mutex_);
  spans_[span].end = std::move(end);
}

void GpuTimeline::collect() {
  std::lock_guard lock(mutex_);
  collected_ = true;
  for (const Span& s : spans_) {
    const auto origin = std::find_if(origins_.begin(), origins_.end(),
                                     [&](const Origin& o) { return o.device == s.device; });
    if (!s.end || origin == origins_.end())
      continue;
    float from_origin = 0, duration = 0;
    if (cudaEventElapsedTime(&from_origin, origin->event->get(), s.start->get()) != cudaSuccess ||
        cudaEventElapsedTime(&duration, s.start->get(), s.end->get()) != cudaSuccess) {
      cudaGetLastError(); // not run (the computation failed first): left out
      continue;
    }
    const auto stream = std::find_if(streams_.begin(), streams_.end(),
                                     [&](const auto& n) { return n.first == s.stream; });
    const int index = stream != streams_.end() ? stream->second : max_streams_per_device;
    const std::int64_t start = origin->host_ns + std::llround(from_origin * 1e6);
    trace_->gpu_span(s.device, index, s.name, s.category, start,
                     start + std::llround(duration * 1e6), s.task, s.bytes);
  }
}

GpuSpan::GpuSpan(const Stream& stream, const char* name, const char* category, std::uint64_t bytes)
    : timeline_(current), stream_(&stream) {
  if (timeline_)
    span_ = timeline_->begin(stream, name, category, bytes);
}

GpuSpan::~GpuSpan() {
  if (!timeline_)
    return;
  try {
    timeline_->end(span_, *stream_);
  } catch (...) { // NOLINT(bugprone-empty-catch): a span without its end is left out
  }
}

} // namespace chunked::cuda
