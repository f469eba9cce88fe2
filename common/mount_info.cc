#include "common/mount_info.h"

#include <sys/sysmacros.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tierfs {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      std::string_view oct = field.substr(i + 1, 3);
      if (oct.size() == 3 && oct[0] >= '0' && oct[0] <= '3' && oct[1] >= '0' && oct[1] <= '7' &&
          oct[2] >= '0' && oct[2] <= '7') {
        out += static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    std::vector<std::string_view> f = SplitSpaces(line);
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 2 >= f.size()) continue;
    MountEntry e;
    e.mount_point = Unescape(f[4]);
    e.fs_type = Unescape(f[dash + 1]);
    e.source = Unescape(f[dash + 2]);
    const std::string maj_min(f[2]);
    char* end = nullptr;
    const unsigned long major = std::strtoul(maj_min.c_str(), &end, 10);
    if (*end == ':') {
      const char* minor_text = end + 1;
      const unsigned long minor = std::strtoul(minor_text, &end, 10);
      if (end != minor_text && *end == '\0') e.device = makedev(major, minor);
    }
    mounts.push_back(std::move(e));
  }
  return mounts;
}

std::optional<MountEntry> TierfsMountFromSource(const std::vector<MountEntry>& mounts,
                                                const std::string& metadata_dir) {
  std::optional<MountEntry> found;
  for (const MountEntry& e : mounts) {
    if (e.fs_type == kTierfsFsType && e.source == metadata_dir) found = e;
  }
  return found;
}

std::optional<MountEntry> TierfsMountOn(const std::vector<MountEntry>& mounts,
                                        const std::string& mount_point) {
  std::optional<MountEntry> found;
  for (const MountEntry& e : mounts) {
    if (e.fs_type == kTierfsFsType && e.mount_point == mount_point) found = e;
  }
  return found;
}

Result<std::vector<MountEntry>> ReadMountInfo(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot read the mount table " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseMountInfo(buf.str());
}

}  // namespace tierfs
