// Metadata::SwapCleanUnmount: the mark that tells a mount whether the previous
// one ended cleanly, so crash recovery (trimming objects to their recorded
// sizes, fs/core/file_system.cc) runs only after a crash; and whether that one
// let the kernel write objects itself (passthrough), which changes what the
// recovery may take for a file's size.
#include <cerrno>

#include "meta/info_table.h"
#include "meta/metadata.h"

namespace tierfs::meta {

Result<bool> Metadata::SwapCleanUnmount(bool clean) {
  auto lock = db_->Lock();
  Result<int64_t> before = GetInfoInt(db_.get(), kInfoCleanUnmount);
  TIERFS_RETURN_IF_ERROR(SetInfoInt(db_.get(), kInfoCleanUnmount, clean ? 1 : 0));
  return before.ok() && *before == 1;
}

Result<bool> Metadata::SwapPassthroughWrites(bool now) {
  auto lock = db_->Lock();
  Result<int64_t> before = GetInfoInt(db_.get(), kInfoPassthroughWrites);
  if (!before.ok() && before.status().code() != ENOENT) return before.status();
  TIERFS_RETURN_IF_ERROR(SetInfoInt(db_.get(), kInfoPassthroughWrites, now ? 1 : 0));
  return before.ok() && *before == 1;
}

Result<bool> Metadata::CrashedWithPassthroughWrites() {
  auto lock = db_->Lock();
  Result<int64_t> clean = GetInfoInt(db_.get(), kInfoCleanUnmount);
  Result<int64_t> kernel = GetInfoInt(db_.get(), kInfoPassthroughWrites);
  if (!kernel.ok() && kernel.status().code() != ENOENT) return kernel.status();
  return kernel.ok() && *kernel == 1 && !(clean.ok() && *clean == 1);
}

}  // namespace tierfs::meta
