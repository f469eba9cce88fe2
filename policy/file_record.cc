#include "policy/file_record.h"

#include <algorithm>

#include "policy/temperature.h"

namespace tierfs::policy {

std::vector<std::string> ParseFileTags(std::string_view value) {
  std::vector<std::string> tags;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && std::find(tags.begin(), tags.end(), word) == tags.end()) {
      tags.push_back(word);
    }
    word.clear();
  };
  for (char c : value) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n') {
      flush();
    } else {
      word.push_back(c);
    }
  }
  flush();
  return tags;
}

void AccumulateBucket(const std::vector<double>& window_hours, int64_t now_s,
                      int64_t bucket_start_s, int64_t bucket_seconds, const IoCounters& bucket,
                      std::vector<IoCounters>* windows) {
  if (windows->size() < window_hours.size()) windows->resize(window_hours.size());
  if (bucket_seconds <= 0) return;
  const double b0 = static_cast<double>(bucket_start_s);
  const double end = static_cast<double>(now_s);
  // A bucket still open at now_s holds only I/O done before now_s: spread it over
  // [start, now_s), not over its full length.
  const double b1 = std::min(b0 + static_cast<double>(bucket_seconds), end);
  if (b1 <= b0) return;
  for (size_t i = 0; i < window_hours.size(); ++i) {
    const double start = end - window_hours[i] * 3600.0;
    const double overlap = b1 - std::max(b0, start);
    if (overlap <= 0) continue;
    const double f = overlap / (b1 - b0);
    IoCounters& w = (*windows)[i];
    w.rbytes += bucket.rbytes * f;
    w.wbytes += bucket.wbytes * f;
    w.rops += bucket.rops * f;
    w.wops += bucket.wops * f;
  }
}

void AddActivity(const IoCounters& io_in_average_period, uint64_t size, ActivityTotals* totals) {
  if (!io_in_average_period.Any()) return;
  totals->io += io_in_average_period;
  totals->size_sum += static_cast<double>(std::max<uint64_t>(size, kMinTemperatureSize));
  totals->active_files += 1;
}

}  // namespace tierfs::policy
