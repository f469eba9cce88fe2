// libFuzzer target: the daemon's control channel, from the raw request bytes
// (scripts/fuzz.sh, docs/testing-tools.md).
//
// The narrowest code that takes the raw bytes of a request is the connection thread
// of ControlServer (fs/control/control_server.cc: read a line, check the peer, parse the
// JSON, check "op", call the handler, encode the answer), and it only reads from a
// socket. So this target runs what the daemon runs, minus FUSE: once per process it
// creates a tierfs file system with the real mkdstfs code (--no-mount, an ssd and an
// hdd volume in a temporary directory), opens it with FileSystem::Open exactly as
// the daemon does before it mounts, puts a few files in it, and starts the real
// ControlServer with the real ControlHandlers on a socket there. Each input is sent
// as one request line on a new connection, and the answer is read back and checked:
// exactly one final line, valid JSON, {"ok":true,"result":{...}} or
// {"ok":false,"errno":N>0,"error":"..."}, never the server's "internal error" (an
// exception that escaped ControlHandlers::Handle) nor "cannot encode the answer".
//
// Covered: framing, JSON parsing, dispatch of every op, ParseScanRequest and the
// other argument checks, policy assign/validate, scans (query, analyze, enforce with
// real relocations between the two volumes), fsmap, fcl, status, flush, and the
// encoding of answers. Not covered: the FUSE side (no kernel mount: a policy DELETE
// cannot notify the kernel, done here by a no-op hook, and nothing reads the mount
// point), and the peer check (the fuzzer is always the owner). The file system keeps
// its state from one input to the next (assigned policy, FCL on/off, where files
// are), so a finding may need the inputs before it to reproduce; the files a policy
// DELETE removed are put back every few hundred inputs.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/common/cli_env.h"
#include "cli/mkdstfs/mkdstfs.h"
#include "fs/control/control_handlers.h"
#include "fs/control/control_server.h"
#include "fs/core/file_system.h"
#include "meta/records.h"

namespace {

using nlohmann::json;
using tierfs::Result;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "control_fuzzer: %s\n", what.c_str());
  std::abort();
}

struct Harness {
  std::string root;  // temporary directory holding everything below
  std::string socket_path;
  std::unique_ptr<tierfs::FileSystem> fs;
  std::unique_ptr<tierfs::ControlHandlers> handlers;
  std::unique_ptr<tierfs::ControlServer> server;
  uint64_t inputs = 0;
  int idle_threads = 0;  // threads of this process while no request is served
};

Harness* g_harness = nullptr;

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  remove(path);
  return 0;
}

void Cleanup() {
  if (g_harness == nullptr) return;
  if (g_harness->server) g_harness->server->Stop();
  nftw(g_harness->root.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

// Threads of this process (the server's connection thread ends a moment after the
// client sees EOF: it still destroys its request and answer).
int ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) Die("cannot list /proc/self/task");
  int n = 0;
  while (const dirent* e = readdir(dir)) n += e->d_name[0] != '.';
  closedir(dir);
  return n;
}

// Files for the scans to find: one per directory the seed policies select.
constexpr const char* kDirs[] = {"db", "logs", "tmp"};
constexpr const char* kFiles[] = {"/a.txt", "/db/data.dbf", "/db/index.idx", "/logs/redo.log",
                                  "/tmp/scratch"};

void EnsureFiles(Harness* h) {
  tierfs::FileSystem& fs = *h->fs;
  tierfs::Caller caller{getuid(), getgid(), getpid(), {}};
  for (const char* dir : kDirs) {
    auto found = fs.Lookup(tierfs::meta::kRootIno, dir);
    if (found.ok()) {
      fs.Forget(found->ino, 1);
    } else {
      auto made = fs.MakeNode(caller, tierfs::meta::kRootIno, dir, S_IFDIR | 0755, 0, {});
      if (made.ok()) fs.Forget(made->ino, 1);
    }
  }
  for (const char* path : kFiles) {
    std::string_view p(path);
    uint64_t parent = tierfs::meta::kRootIno;
    size_t slash = p.rfind('/');
    if (slash > 0) {
      auto dir = fs.Lookup(tierfs::meta::kRootIno, p.substr(1, slash - 1));
      if (!dir.ok()) continue;
      parent = dir->ino;
      fs.Forget(parent, 1);
    }
    const std::string_view name = p.substr(slash + 1);
    auto existing = fs.Lookup(parent, name);
    if (existing.ok()) {
      fs.Forget(existing->ino, 1);
      continue;
    }
    auto created = fs.Create(caller, parent, name, 0644, O_RDWR);
    if (!created.ok()) continue;
    std::string bytes(4096 * (1 + name.size() % 4), static_cast<char>('a' + name.size() % 26));
    (void)fs.Write(created->second, bytes.data(), bytes.size(), 0);
    char buf[4096];
    (void)fs.Read(created->second, buf, sizeof buf, 0);  // some read I/O for IOTEMP
    (void)fs.Release(created->second);
    fs.Forget(created->first.ino, 1);
  }
  (void)fs.FlushAll();
}

Harness* Setup() {
  auto* h = new Harness;
  // Under $TMPDIR (scripts/fuzz.sh points it into build-fuzz): a crash ends the
  // process without atexit handlers and leaves the directory behind.
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
                     "/tierfs-control-fuzz-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp failed in " + tmpl);
  h->root = tmpl;
  g_harness = h;
  std::atexit(Cleanup);
  const std::string ssd = h->root + "/ssd", hdd = h->root + "/hdd", mnt = h->root + "/mnt";
  if (mkdir(ssd.c_str(), 0700) != 0 || mkdir(hdd.c_str(), 0700) != 0) Die("mkdir failed");

  std::ostringstream out, err;
  tierfs::cli::CliEnv env;
  env.out = &out;
  env.err = &err;
  env.mountinfo_path = "/dev/null";
  int rc = tierfs::cli::MkdstfsMain(
      {"mkdstfs", "--no-mount", mnt, "fuzzfs", ssd + ":ssd", hdd + ":hdd"}, env);
  if (rc != 0) Die("mkdstfs failed: " + err.str());

  tierfs::FileSystemOptions options;
  options.mountpoint = mnt;  // never mounted: reports name it, nothing reads it
  auto fs = tierfs::FileSystem::Mount(ssd, options);
  if (!fs.ok()) Die("FileSystem::Open: " + fs.status().message());
  h->fs = std::move(fs).value();
  h->fs->SetEntryRemovedHook([](uint64_t, uint64_t, std::string_view) {});
  EnsureFiles(h);

  h->handlers = std::make_unique<tierfs::ControlHandlers>(*h->fs);
  h->socket_path = h->root + "/control.sock";
  tierfs::ControlHandlers* handlers = h->handlers.get();
  auto server = tierfs::ControlServer::Start(
      h->socket_path, getuid(),
      [handlers](const json& request, const tierfs::ControlPeer& peer,
                 tierfs::ControlReply& reply) { return handlers->Handle(request, peer, reply); });
  if (!server.ok()) Die("ControlServer::Start: " + server.status().message());
  h->server = std::move(server).value();
  h->idle_threads = ThreadCount();
  return h;
}

// Waits until only the threads of an idle server are left, so that libFuzzer's
// leak check after each input does not see a connection thread halfway through
// freeing its objects (a false leak). A thread that never ends is a finding.
void WaitForIdleServer(const Harness& h) {
  for (int i = 0; ThreadCount() > h.idle_threads; ++i) {
    if (i == 30000) Die("a server thread is still running 30 s after its answer");
    usleep(1000);
  }
}

// Sends `request` on a new connection, then reads the whole answer.
std::string Exchange(const Harness& h, std::string_view request) {
  auto fd_or = tierfs::ConnectControlSocket(h.socket_path);
  if (!fd_or.ok()) Die("connect: " + fd_or.status().message());
  const int fd = *fd_or;
  std::string_view rest = request;
  while (!rest.empty()) {
    ssize_t n = send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;  // the server answered early (e.g. EMSGSIZE) and closed
    rest.remove_prefix(static_cast<size_t>(n));
  }
  shutdown(fd, SHUT_WR);
  std::string answer;
  char buf[65536];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return answer;
}

void CheckAnswer(std::string_view request, const std::string& answer) {
  if (answer.empty() || answer.back() != '\n') Die("no final answer line for the request");
  std::string_view lines(answer);
  lines.remove_suffix(1);
  size_t last_nl = lines.rfind('\n');
  // Progress lines first, each {"progress": {...}}.
  if (last_nl != std::string_view::npos) {
    std::string_view progress = lines.substr(0, last_nl);
    size_t start = 0;
    while (start <= progress.size()) {
      size_t end = progress.find('\n', start);
      if (end == std::string_view::npos) end = progress.size();
      json p = json::parse(progress.substr(start, end - start), nullptr, false);
      if (p.is_discarded() || !p.is_object() || !p.contains("progress")) {
        Die("malformed progress line");
      }
      start = end + 1;
    }
  }
  std::string_view final_line =
      last_nl == std::string_view::npos ? lines : lines.substr(last_nl + 1);
  json j = json::parse(final_line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) {
    Die("the final line is not {\"ok\": bool, ...}: " + std::string(final_line.substr(0, 300)));
  }
  if (j["ok"]) {
    if (!j.contains("result") || !j["result"].is_object()) Die("ok without a result object");
    return;
  }
  if (!j.contains("errno") || !j["errno"].is_number_integer() || j["errno"].get<int>() <= 0 ||
      !j.contains("error") || !j["error"].is_string()) {
    Die("error answer without errno > 0 and an error string");
  }
  const std::string error = j["error"];
  if (error.rfind("internal error", 0) == 0 || error.rfind("cannot encode the answer", 0) == 0) {
    Die("the server contained an exception: " + error.substr(0, 400) +
        "\nrequest: " + std::string(request.substr(0, 400)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness* h = Setup();
  if (++h->inputs % 256 == 0) EnsureFiles(h);  // put back what DELETE rules removed
  // One request line: the input up to its first newline (bytes after it are sent too,
  // and the server must ignore them); a newline is added when there is none.
  std::string request(reinterpret_cast<const char*>(data), size);
  if (request.find('\n') == std::string::npos) request.push_back('\n');
  const std::string answer = Exchange(*h, request);
  WaitForIdleServer(*h);
  // CONTROL_FUZZER_PRINT=1: show each exchange (to check what the seeds reach).
  static const bool print = std::getenv("CONTROL_FUZZER_PRINT") != nullptr;
  if (print) {
    std::fprintf(stderr, "> %.200s\n< %.600s\n", request.c_str(), answer.c_str());
  }
  CheckAnswer(request, answer);
  return 0;
}
