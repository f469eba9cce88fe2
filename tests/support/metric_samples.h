// Reading the daemon's Prometheus metrics back in tests: the samples parsed by
// tests/integration/metrics_check.py (the prometheus_client package's parser,
// independent of the writer, which also checks that histogram buckets are
// cumulative), and one sample's value by name and labels.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "tests/support/run_command.h"

namespace tierfs::testing {

// "name{label=\"value\",...}" (labels sorted by name) -> value.
using MetricSamples = std::map<std::string, double>;

// The samples of `source` (an http:// URL or a file). Needs TIERFS_SOURCE_DIR
// defined by the test target. Fails the test (and returns what it could read)
// when metrics_check.py cannot parse them or a check fails.
inline MetricSamples ReadMetricSamples(const std::string& source) {
  CommandResult r = RunCommand(
      {"/usr/bin/python3", TIERFS_SOURCE_DIR "/tests/integration/metrics_check.py", source});
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 3000);
  MetricSamples out;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    out[line.substr(0, space)] = std::strtod(line.c_str() + space + 1, nullptr);
  }
  return out;
}

// The value of `name` with `labels` (R"(class="hdd",volume="vol2")", any order,
// without the mount label) on mount point `mount`, or -1 when there is no such
// sample.
inline double MetricValue(const MetricSamples& samples, const std::string& mount,
                          const std::string& name, const std::string& labels) {
  // metrics_check.py sorts the labels by name; "mount" takes its place among them.
  std::map<std::string, std::string> sorted = {{"mount", "mount=\"" + mount + "\""}};
  std::istringstream parts(labels);
  for (std::string part; std::getline(parts, part, ',');) {
    sorted[part.substr(0, part.find('='))] = part;
  }
  std::string key = name + "{";
  for (const auto& [label, text] : sorted) key += (key.back() == '{' ? "" : ",") + text;
  auto it = samples.find(key + "}");
  return it == samples.end() ? -1 : it->second;
}

}  // namespace tierfs::testing
