// Helpers shared by the policy tests: policy documents, files and volumes.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "policy/file_record.h"
#include "policy/loader.h"
#include "policy/policy.h"
#include "policy/volume_state.h"

namespace tierfs::policy::testing {

constexpr int64_t kHour = 3600;
constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

// The text of tests/policy/data/<name>.
inline std::string ReadTestData(const std::string& name) {
  std::ifstream in(std::string(TIERFS_SOURCE_DIR) + "/tests/policy/data/" + name);
  EXPECT_TRUE(in) << "missing test data " << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces every `from` in `text` by `to`.
inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = text.find(from, p)) != std::string::npos; p += to.size()) {
    text.replace(p, from.size(), to);
  }
  return text;
}

// A policy document whose `body` starts on line 3:
//   line 1 <?xml version="1.0"?>
//   line 2 <PLACEMENT_POLICY Name="test" Version="5.1" ...>
inline std::string PolicyXml(const std::string& body, const std::string& attrs = "") {
  return "<?xml version=\"1.0\"?>\n<PLACEMENT_POLICY Name=\"test\" Version=\"5.1\"" +
         (attrs.empty() ? "" : " " + attrs) + ">\n" + body + "\n</PLACEMENT_POLICY>\n";
}

// All diagnostics, one per line, for failure messages.
inline std::string Dump(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.errors) out += "  error   " + d.ToString() + "\n";
  for (const Diagnostic& d : r.warnings) out += "  warning " + d.ToString() + "\n";
  return out;
}

// Loads `xml` and expects no error.
inline PlacementPolicy MustLoad(std::string_view xml) {
  LoadResult r = LoadPolicy(xml);
  EXPECT_TRUE(r.ok()) << Dump(r);
  return r.policy ? *r.policy : PlacementPolicy{};
}

// True when `diags` has an entry on `line` for `element` whose message
// contains `text`.
inline bool Has(const std::vector<Diagnostic>& diags, int line, std::string_view element,
                std::string_view text) {
  for (const Diagnostic& d : diags) {
    if (d.line == line && d.element == element && d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

inline VolumeState Volume(uint32_t id, const std::string& cls, uint64_t total, uint64_t free,
                          uint64_t reserve = 0) {
  return VolumeState{id, "vol" + std::to_string(id), {cls}, total, free, reserve};
}

inline FileRecord File(uint64_t ino, const std::string& path, uint64_t size, uint32_t volume) {
  FileRecord f;
  f.ino = ino;
  f.path = path;
  f.size = size;
  f.volume_id = volume;
  f.user = "alice";
  f.group = "staff";
  f.uid = 1000;
  f.gid = 100;
  return f;
}

}  // namespace tierfs::policy::testing
