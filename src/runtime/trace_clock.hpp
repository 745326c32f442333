// SPDX-License-Identifier: Apache-2.0
// The clock of the events a trace records for every task: cheap to read, and converted to
// nanoseconds only when the trace is written.
#pragma once

#include <cstdint>

namespace chunked::runtime {

/// Ticks of the CPU's time-stamp counter where it counts at a constant rate on every core
/// (x86-64 with an invariant TSC), else steady_clock's nanoseconds. A task's two reads are most
/// of what recording it costs, and the counter is two to three times cheaper to read than
/// steady_clock (which, on a virtual machine, may read a paravirtual clock).
std::int64_t trace_ticks() noexcept;

/// Whether trace_ticks() counts the time-stamp counter (false: nanoseconds).
bool trace_ticks_are_cycles() noexcept;

/// trace_ticks() per nanosecond, measured once per process against steady_clock (over 100 µs,
/// the first time it is asked for); 1 when they are nanoseconds. Rough: for spacing samples
/// while a computation runs. A trace converts its ticks with the rate over its own duration.
double trace_ticks_per_ns();

} // namespace chunked::runtime
