// fsppadm tag add|remove TAG FILE... | tag list FILE...: the file tags that
// policies select with <TAG> (docs/policies.md "SELECT: which files"), words in
// the extended attribute user.tierfs.tags.
#pragma once

#include <string>
#include <vector>

#include "cli/fsppadm/subcommand.h"

namespace tierfs::cli::fsppadm {

enum class TagAction { kAdd, kRemove, kList };

struct TagOptions {
  CommonFlags flags;
  TagAction action = TagAction::kList;
  std::string tag;                 // add/remove: one word without commas or spaces
  std::vector<std::string> files;  // at least one
};

// Parses args = {"tag", ACTION, ...}. EINVAL: "expected add|remove TAG FILE...
// or list FILE...", "expected add, remove or list, got \"...\"", "a TAG is one
// word without commas or spaces, got \"...\"", or an unknown option.
Result<TagOptions> ParseTagOptions(const std::vector<std::string>& args);

// Changes or prints each file's tags through the mounted file system with the
// caller's permissions (no daemon involved). Returns kExitOk, or kExitFailed
// when a file's tags could not be read or written (each is reported).
int RunTag(const TagOptions& options, const CliEnv& env);

extern const Subcommand kTagCommand;

}  // namespace tierfs::cli::fsppadm
