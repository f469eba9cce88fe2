#include "cli/common/progress_line.h"

#include "cli/common/json_fields.h"

namespace tierfs::cli {

ProgressLine::ProgressLine(std::ostream& err, bool enabled, std::string label)
    : err_(err), enabled_(enabled), label_(std::move(label)) {}

std::string ProgressLine::Text(const std::string& label, const nlohmann::json& progress) {
  std::string text = label;
  std::string phase = JsonString(progress, "phase");
  if (!phase.empty()) text += ": " + phase;
  if (JsonHasNumber(progress, "done")) {
    uint64_t done = JsonUint(progress, "done");
    uint64_t total = JsonUint(progress, "total");
    text += " " + std::to_string(done);
    if (total > 0) {
      text += "/" + std::to_string(total);
      text += " " + std::to_string(done >= total ? 100 : done * 100 / total) + "%";
    }
  }
  return text;
}

void ProgressLine::Update(const nlohmann::json& progress) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  std::string phase = JsonString(progress, "phase");
  bool last =
      JsonHasNumber(progress, "total") && JsonUint(progress, "done") >= JsonUint(progress, "total");
  if (shown_ && phase == last_phase_ && !last &&
      now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_phase_ = phase;
  last_draw_ = now;
  // \r returns to the start of the line; ESC[K clears what a longer previous
  // text left behind.
  err_ << '\r' << Text(label_, progress) << "\x1b[K" << std::flush;
  shown_ = true;
}

void ProgressLine::Clear() {
  if (!shown_) return;
  err_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace tierfs::cli
