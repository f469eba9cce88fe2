// Tags are words in the extended attribute user.tierfs.tags (comma-separated), so
// this command works through the mounted file system with the caller's own
// permissions (the kernel lets the owner or root change user.* attributes); it does
// not need the daemon's control socket.
#include "cli/fsppadm/tag.h"

#include <sys/xattr.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "cli/common/exit_codes.h"
#include "policy/file_record.h"

namespace tierfs::cli::fsppadm {
namespace {

constexpr char kTagUsage[] =
    "usage: fsppadm tag add|remove TAG FILE...\n"
    "       fsppadm tag list FILE...\n"
    "Adds or removes the word TAG in each file's tags (the extended attribute\n"
    "user.tierfs.tags, comma-separated), which policies select with <TAG>; list\n"
    "prints each file's tags. The file's owner (or root) may change them.\n";

std::string TagUsage() { return std::string(kTagUsage) + kCommonOptionsUsage; }

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
  if (setxattr(path.c_str(), policy::kFileTagsXattr, value.data(), value.size(), 0) != 0) {
    return -errno;
  }
  return 0;
}

}  // namespace

Result<TagOptions> ParseTagOptions(const std::vector<std::string>& args) {
  TagOptions o;
  Result<std::vector<std::string>> operands = ParseSubcommandOptions(args, {}, &o.flags, nullptr);
  if (!operands.ok()) return operands.status();
  if (o.flags.help || o.flags.version) return o;
  std::vector<std::string>& words = *operands;
  TIERFS_RETURN_IF_ERROR(ExpectOperands(!words.empty(), "add|remove TAG FILE... or list FILE..."));
  const std::string action = words.front();
  words.erase(words.begin());
  if (action == "add" || action == "remove") {
    o.action = action == "add" ? TagAction::kAdd : TagAction::kRemove;
    TIERFS_RETURN_IF_ERROR(ExpectOperands(words.size() >= 2, "TAG FILE..."));
    o.tag = words.front();
    words.erase(words.begin());
    if (o.tag.find_first_of(", \t\n") != std::string::npos || o.tag.empty()) {
      return Status::Invalid("a TAG is one word without commas or spaces, got \"" + o.tag + "\"");
    }
  } else if (action == "list") {
    o.action = TagAction::kList;
    TIERFS_RETURN_IF_ERROR(ExpectOperands(!words.empty(), "FILE..."));
  } else {
    return Status::Invalid("expected add, remove or list, got \"" + action + "\"");
  }
  o.files = std::move(words);
  return o;
}

int RunTag(const TagOptions& options, const CliEnv& env) {
  int code = kExitOk;
  for (const std::string& path : options.files) {
    std::vector<std::string> tags;
    int rc = ReadTags(path, &tags);
    if (rc == 0 && options.action != TagAction::kList) {
      auto it = std::find(tags.begin(), tags.end(), options.tag);
      if (options.action == TagAction::kAdd && it == tags.end()) tags.push_back(options.tag);
      if (options.action == TagAction::kRemove && it != tags.end()) tags.erase(it);
      rc = WriteTags(path, tags);
    }
    if (rc != 0) {
      PrintError(env, kTool, path + ": " + std::strerror(-rc));
      code = kExitFailed;
      continue;
    }
    if (options.action == TagAction::kList) *env.out << path << ": " << JoinWords(tags) << "\n";
  }
  return code;
}

const Subcommand kTagCommand = {"tag", TagUsage,
                                ParseToInvocation<TagOptions, ParseTagOptions, RunTag>};

}  // namespace tierfs::cli::fsppadm
