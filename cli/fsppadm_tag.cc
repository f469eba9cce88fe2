// fsppadm tag: the file tags that policies select with <TAG> (docs/policies.md
// "SELECT: which files").
//
// Tags are words in the extended attribute user.tierfs.tags (comma-separated), so
// this command works through the mounted file system with the caller's own
// permissions (the kernel lets the owner or root change user.* attributes); it does
// not need the daemon's control socket.
#include <sys/xattr.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "cli/exit_codes.h"
#include "cli/fsppadm_commands.h"
#include "policy/file_record.h"

namespace tierfs::cli::fsppadm {
namespace {

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ",") + w;
  return out;
}

// The file's tags; ENODATA (no tags yet) reads as none. -errno on failure.
int ReadTags(const std::string& path, std::vector<std::string>* tags) {
  std::string value(4096, '\0');
  ssize_t n = getxattr(path.c_str(), policy::kFileTagsXattr, value.data(), value.size());
  if (n < 0 && errno == ERANGE) {
    n = getxattr(path.c_str(), policy::kFileTagsXattr, nullptr, 0);
    if (n >= 0) {
      value.resize(static_cast<size_t>(n));
      n = getxattr(path.c_str(), policy::kFileTagsXattr, value.data(), value.size());
    }
  }
  if (n < 0) {
    if (errno != ENODATA) return -errno;
    tags->clear();
    return 0;
  }
  value.resize(static_cast<size_t>(n));
  *tags = policy::ParseFileTags(value);
  return 0;
}

int WriteTags(const std::string& path, const std::vector<std::string>& tags) {
  if (tags.empty()) {
    if (removexattr(path.c_str(), policy::kFileTagsXattr) != 0 && errno != ENODATA) return -errno;
    return 0;
  }
  const std::string value = JoinWords(tags);
  if (setxattr(path.c_str(), policy::kFileTagsXattr, value.data(), value.size(), 0) != 0) return -errno;
  return 0;
}

}  // namespace

int RunTag(const FsppadmArgs& args, const CliEnv& env) {
  int code = kExitOk;
  for (const std::string& path : args.paths) {
    std::vector<std::string> tags;
    int rc = ReadTags(path, &tags);
    if (rc == 0 && args.tag_action != "list") {
      auto it = std::find(tags.begin(), tags.end(), args.tag);
      if (args.tag_action == "add" && it == tags.end()) tags.push_back(args.tag);
      if (args.tag_action == "remove" && it != tags.end()) tags.erase(it);
      rc = WriteTags(path, tags);
    }
    if (rc != 0) {
      PrintError(env, kTool, path + ": " + std::strerror(-rc));
      code = kExitFailed;
      continue;
    }
    if (args.tag_action == "list") *env.out << path << ": " << JoinWords(tags) << "\n";
  }
  return code;
}

}  // namespace tierfs::cli::fsppadm
