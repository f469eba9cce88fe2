// ProgressLine: shows the daemon's progress lines ({"phase", "done", "total"})
// as one line on a terminal that rewrites itself ("enforce: move 120/800 15%").
// When the stream is not a terminal it prints nothing, so logs and pipes get the
// report alone. Not thread-safe.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace tierfs::cli {

class ProgressLine {
 public:
  // `enabled`: whether `err` is a terminal. `label` starts the line ("enforce").
  ProgressLine(std::ostream& err, bool enabled, std::string label);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Redraws the line (at most ten times a second, and always at a phase change
  // or at the last item).
  void Update(const nlohmann::json& progress);
  // Erases the line, so the report that follows starts on a clean line.
  void Clear();

  // The text of the line for `progress`, without control characters.
  static std::string Text(const std::string& label, const nlohmann::json& progress);

 private:
  std::ostream& err_;
  bool enabled_;
  std::string label_;
  bool shown_ = false;
  std::string last_phase_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace tierfs::cli
