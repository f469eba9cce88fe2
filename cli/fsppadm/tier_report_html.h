// The HTML form of `fsppadm report --html FILE` (docs/admin.md "A picture of
// the tiers"): one self-contained page (no script, no network) with a title
// naming the mount point and the time, an inline SVG chart drawn here, and
// tables with the numbers.
//
// Chart: one row per directory (svg#chart g.dir, data-path = the path): a
// stacked bar of its bytes per class (rect.seg, data-class, data-bytes; the
// widest directory fills kTierBarWidth pixels, the others in proportion), and
// under it a thin heat bar (rect.heat) as long as its bytes read and written
// in the window relative to the busiest directory, darker the higher its
// IOTEMP. Tables table#directories, table#classes, table#volumes: sizes shown
// as HumanBytes with the exact bytes in data-value and title.
//
// Every string from the file system (paths, names) is escaped. Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cli/fsppadm/tier_report.h"

namespace tierfs::cli {

// Pixels the widest directory's bar takes.
inline constexpr double kTierBarWidth = 600;

// `text` safe in HTML text and in quoted attribute values: & < > " ' become
// entities; control characters (a newline in a file name) become U+FFFD.
// Other bytes pass unchanged (UTF-8 stays UTF-8).
std::string HtmlEscape(std::string_view text);

// The length of the bar for `value` when `max` fills `full` (pixels):
// value / max * full, 0 when max is 0, never more than `full`.
double BarWidth(uint64_t value, uint64_t max, double full);

// The fill colour ("#1f77b4") of class `name`, the `index`-th in the report's
// class order: ssd, hdd and mixed have fixed colours, others take one of a
// palette by index.
std::string ClassColour(const std::string& name, size_t index);

// The whole page, "<!DOCTYPE html>..." ending in a newline.
std::string TierReportHtml(const TierReport& report);

}  // namespace tierfs::cli
