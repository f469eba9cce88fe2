#include "cli/common/tool_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

#include "cli/common/exit_codes.h"

namespace tierfs::cli {

Result<LocatedPath> LocatePath(const CliEnv& env, const std::string& operand, int* exit_code) {
  Result<std::string> resolved = ResolvePath(operand);
  if (!resolved.ok()) {
    *exit_code = kExitUsage;
    return resolved.status();
  }
  Result<std::vector<MountEntry>> mounts = ReadMountInfo(env.mountinfo_path);
  if (!mounts.ok()) {
    *exit_code = kExitUnreachable;
    return mounts.status();
  }
  Result<TierfsMount> mount = FindTierfsMount(*mounts, *resolved);
  if (!mount.ok()) {
    *exit_code = kExitUnreachable;
    std::string message = mount.status().message();
    if (*resolved != operand) message = operand + ": " + message;
    return Status::Error(mount.status().code(), message);
  }
  LocatedPath out;
  out.operand = operand;
  out.host_path = *resolved;
  out.mount = *mount;
  Result<std::string> rel = MountRelativePath(mount->mount_point, *resolved);
  out.mount_path = rel.ok() ? *rel : "/";
  return out;
}

Result<std::string> ReadTextFile(const std::string& path) {
  constexpr size_t kMax = 64 << 20;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(path);
  std::string text;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = Status::FromErrno(path);
      close(fd);
      return st;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMax) {
      close(fd);
      return Status::Error(EFBIG, path + ": larger than 64 MiB");
    }
  }
  close(fd);
  return text;
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno("cannot create " + path);
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = Status::FromErrno("cannot write " + path);
      close(fd);
      return st;
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (close(fd) != 0) return Status::FromErrno("cannot write " + path);
  return Status::Ok();
}

void PrintError(const CliEnv& env, std::string_view tool, std::string_view message) {
  *env.err << tool << ": " << message << "\n";
  env.err->flush();
}

std::optional<MountConnection> ConnectToMount(const CliEnv& env, std::string_view tool,
                                              const std::string& operand, int* exit_code) {
  int code = kExitOk;
  Result<LocatedPath> where = LocatePath(env, operand, &code);
  if (!where.ok()) {
    PrintError(env, tool, where.status().message());
    *exit_code = std::max(*exit_code, code);
    return std::nullopt;
  }
  ControlClient client(where->mount);
  return MountConnection{std::move(*where), std::move(client)};
}

std::string CallErrorMessage(const ControlClient& client, const Status& status) {
  if (client.unreachable()) return status.message();
  return client.mount().mount_point + ": " + status.message();
}

std::optional<nlohmann::json> CallOrReport(const CliEnv& env, std::string_view tool,
                                           ControlClient& client, const nlohmann::json& request,
                                           int* exit_code, const ProgressCallback& progress) {
  Result<nlohmann::json> result = client.Call(request, progress);
  if (!result.ok()) {
    PrintError(env, tool, CallErrorMessage(client, result.status()));
    *exit_code = std::max(*exit_code, client.ExitCodeFor(result.status()));
    return std::nullopt;
  }
  return std::move(*result);
}

int RunToolBody(const CliEnv& env, std::string_view tool, const std::function<int()>& body) {
  try {
    const int code = body();
    env.out->flush();
    return code;
  } catch (const std::exception& e) {
    PrintError(env, tool, std::string("internal error: ") + e.what());
    return kExitFailed;
  }
}

}  // namespace tierfs::cli
