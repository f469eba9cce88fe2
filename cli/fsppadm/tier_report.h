// The data of `fsppadm report` (docs/admin.md "A picture of the tiers"): per
// directory, how many bytes sit on each placement class and how hot they are;
// per class and per volume, the same with capacity. Read from the daemon's
// "tier_summary" answer (fs/control/control_protocol.md) and printed as a text table;
// cli/fsppadm/tier_report_html.h draws it.
//
// Value types and pure functions; thread-safe. Missing or mistyped members of
// the answer read as 0 or "" (json_fields.h): nothing throws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tierfs::cli {

// Files, bytes and heat of some set of files.
struct TierTally {
  uint64_t files = 0;
  uint64_t bytes = 0;   // sum of the files' sizes
  uint64_t rbytes = 0;  // bytes read in the report's window
  uint64_t wbytes = 0;  // bytes written in the window
  double iotemp = 0;    // (rbytes + wbytes) / (hours x sum of max(size, 4096)), per hour
};

// One directory: its files (and those below it, past the report's depth).
struct TierDirectory {
  std::string path;  // mount-relative, "/" for the root
  TierTally all;
  std::map<std::string, TierTally> by_class;  // only files and bytes are set
};

// One placement class, or one volume (then `cls` is its class).
struct TierSpace {
  std::string name;   // the class, or the volume's name
  std::string cls;    // the volume's class ("" for a class row)
  std::string state;  // the volume's health ("" for a class row)
  TierTally tally;
  // Capacity, used and free bytes; not known (shown as "-") for an object
  // volume, or a class with one: a store's capacity is not known.
  bool space_known = true;
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;
  uint64_t free_bytes = 0;
};

struct TierReport {
  std::string mount_point;  // as given to the tool
  int64_t now_s = 0;        // when the daemon gathered it, seconds since the epoch
  double hours = 0;         // the heat window
  int64_t depth = 0;
  std::vector<TierDirectory> directories;  // byte order of their paths
  std::vector<TierSpace> classes;          // the daemon's order (volumes' order)
  std::vector<TierSpace> volumes;          // by id
  TierTally totals;
};

// Reads the daemon's answer to {"op":"tier_summary"}.
TierReport TierReportFromJson(const nlohmann::json& answer, const std::string& mount_point);

// The class names in the report's order (those of `classes`, then any a
// directory names that no class row has).
std::vector<std::string> TierReportClassNames(const TierReport& report);

// The text form: a header line, the directory table (bytes per class, read,
// written, IOTEMP), the class table and the volume table; each line ends in
// '\n'. Sizes as HumanBytes ("1.5M").
std::string TierReportText(const TierReport& report);

}  // namespace tierfs::cli
