// fcladm on a mounted tierfs: on, off, state, sync and print (-s, -t, -n,
// --json), and the File Change Log records that namespace changes and I/O leave.
//
// Assumed (fs/daemon/session.cc and fs/core/file_system.cc, owned elsewhere): the daemon logs
// one "filestats" record per file at each flush of its I/O counters, with the
// detail "rbytes=N wbytes=N reads=N writes=N" (the I/O since the previous record);
// data written since the last attribute flush is logged as an event whose name starts
// with "write".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using nlohmann::json;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// "rbytes=1 wbytes=2" -> {rbytes: 1, wbytes: 2}
std::map<std::string, uint64_t> DetailNumbers(const std::string& detail) {
  std::map<std::string, uint64_t> out;
  size_t pos = 0;
  while (pos < detail.size()) {
    size_t end = detail.find(' ', pos);
    if (end == std::string::npos) end = detail.size();
    std::string word = detail.substr(pos, end - pos);
    size_t eq = word.find('=');
    if (eq != std::string::npos) out[word.substr(0, eq)] = std::strtoull(word.c_str() + eq + 1, nullptr, 10);
    pos = end + 1;
  }
  return out;
}

class FcladmTest : public TierfsFixture {
 protected:
  // The daemon's data path: the FCL's I/O statistics count exactly the bytes the daemon served.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  json RunJson(const std::vector<std::string>& args, int exit_code = 0) {
    CommandResult r = Tool("fcladm", args);
    EXPECT_EQ(r.exit_code, exit_code) << r.output;
    json doc = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(doc.is_discarded()) << "not JSON: " << r.output;
    return doc.is_discarded() ? json::object() : doc;
  }
  json Records(std::vector<std::string> options = {}) {
    std::vector<std::string> args = {"print", "--json"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(mnt_);
    json doc = RunJson(args);
    return doc.contains("records") ? doc["records"] : json::array();
  }
  int64_t LastSeq() { return RunJson({"state", "--json", mnt_}).value("last_seq", int64_t{0}); }
  uint64_t Ino(const std::string& relative) {
    struct stat st;
    EXPECT_EQ(stat(Path(relative).c_str(), &st), 0) << relative;
    return st.st_ino;
  }
  // The first record of `event` for `ino` in `records`, or null.
  static json Find(const json& records, const std::string& event, uint64_t ino) {
    for (const json& r : records) {
      if (r["event"] == event && r["ino"] == ino) return r;
    }
    return nullptr;
  }
};

TEST_F(FcladmTest, NamespaceChangesAreRecordedInOrder) {
  const int64_t start = LastSeq();
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  WriteFile(Path("a"), "hello");
  WriteFile(Path("d/b"), "x");
  ASSERT_EQ(link(Path("a").c_str(), Path("alink").c_str()), 0);
  ASSERT_EQ(rename(Path("d/b").c_str(), Path("d/c").c_str()), 0);
  ASSERT_EQ(chmod(Path("a").c_str(), 0600), 0);
  ASSERT_EQ(truncate(Path("a").c_str(), 2), 0);
  ASSERT_EQ(unlink(Path("alink").c_str()), 0);
  const uint64_t dir = Ino("d"), a = Ino("a"), b = Ino("d/c");
  CommandResult sync = Tool("fcladm", {"sync", mnt_});
  ASSERT_EQ(sync.exit_code, 0) << sync.output;
  EXPECT_TRUE(Contains(sync.output, "FCL on:")) << sync.output;

  json records = Records({"-s", std::to_string(start + 1)});
  ASSERT_FALSE(records.empty());
  int64_t prev_seq = start;
  int64_t prev_time = 0;
  for (const json& r : records) {
    EXPECT_GT(r["seq"].get<int64_t>(), prev_seq) << r.dump();
    EXPECT_GE(r["time_ns"].get<int64_t>(), prev_time) << r.dump();
    prev_seq = r["seq"];
    prev_time = r["time_ns"];
  }

  json mk = Find(records, "mkdir", dir);
  ASSERT_FALSE(mk.is_null()) << records.dump(1);
  EXPECT_EQ(mk["name"], "d");
  EXPECT_EQ(mk["parent"], 1);
  json create = Find(records, "create", a);
  ASSERT_FALSE(create.is_null()) << records.dump(1);
  EXPECT_EQ(create["name"], "a");
  json create_b = Find(records, "create", b);
  ASSERT_FALSE(create_b.is_null()) << records.dump(1);
  EXPECT_EQ(create_b["name"], "b");
  EXPECT_EQ(create_b["parent"], dir);
  json ln = Find(records, "link", a);
  ASSERT_FALSE(ln.is_null()) << records.dump(1);
  EXPECT_EQ(ln["name"], "alink");
  json mv = Find(records, "rename", b);
  ASSERT_FALSE(mv.is_null()) << records.dump(1);
  EXPECT_EQ(mv["name"], "b");
  EXPECT_EQ(mv["detail"], "to=/d/c");
  EXPECT_FALSE(Find(records, "setattr", a).is_null()) << records.dump(1);
  EXPECT_FALSE(Find(records, "truncate", a).is_null()) << records.dump(1);
  json rm = Find(records, "unlink", a);
  ASSERT_FALSE(rm.is_null()) << records.dump(1);
  EXPECT_EQ(rm["name"], "alink");
  // Written data: an event named write (or write-open) for each file.
  for (uint64_t ino : {a, b}) {
    bool written = false;
    for (const json& r : records) {
      written |= r["ino"] == ino && r["event"].get<std::string>().rfind("write", 0) == 0;
    }
    EXPECT_TRUE(written) << "ino " << ino << ": " << records.dump(1);
  }
  // The order of the changes is kept.
  EXPECT_LT(create["seq"].get<int64_t>(), ln["seq"].get<int64_t>());
  EXPECT_LT(ln["seq"].get<int64_t>(), mv["seq"].get<int64_t>());
  EXPECT_LT(mv["seq"].get<int64_t>(), rm["seq"].get<int64_t>());

  // The text form has the same records.
  CommandResult text = Tool("fcladm", {"print", "-s", std::to_string(start + 1), mnt_});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "SEQ")) << text.output;
  EXPECT_TRUE(Contains(text.output, "rename")) << text.output;
  EXPECT_TRUE(Contains(text.output, "to=/d/c")) << text.output;
  EXPECT_TRUE(Contains(text.output, "alink")) << text.output;
}

// With the writeback cache the kernel re-stamps ctime after a rename, link or
// unlink and sends that stamp as a bare setattr. It is the kernel's
// bookkeeping of the change already logged, not a change of attributes: no
// "setattr" record. ctime still moves, and after a remount it is not older
// than what the kernel showed (the daemon's own stamp of the change, or the
// kernel's if newer, stored by the periodic or final flush).
TEST_F(FcladmTest, KernelCtimeStampsAreNotLoggedAsSetattr) {
  WriteFile(Path("a"), "hello");
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);  // the data's times flushed
  const uint64_t a = Ino("a");
  const int64_t start = LastSeq();
  struct stat before, after;
  ASSERT_EQ(stat(Path("a").c_str(), &before), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(rename(Path("a").c_str(), Path("b").c_str()), 0);
  ASSERT_EQ(link(Path("b").c_str(), Path("c").c_str()), 0);
  ASSERT_EQ(unlink(Path("c").c_str()), 0);
  ASSERT_EQ(stat(Path("b").c_str(), &after), 0);
  EXPECT_GT(after.st_ctim.tv_sec * 1'000'000'000L + after.st_ctim.tv_nsec,
            before.st_ctim.tv_sec * 1'000'000'000L + before.st_ctim.tv_nsec + 10'000'000L);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  WriteFile(Path("gone"), "x");
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
  const uint64_t gone = Ino("gone");
  ASSERT_EQ(unlink(Path("gone").c_str()), 0);
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);

  json records = Records({"-s", std::to_string(start + 1)});
  EXPECT_FALSE(Find(records, "rename", a).is_null()) << records.dump(1);
  EXPECT_FALSE(Find(records, "link", a).is_null()) << records.dump(1);
  EXPECT_FALSE(Find(records, "unlink", gone).is_null()) << records.dump(1);
  EXPECT_TRUE(Find(records, "setattr", a).is_null()) << records.dump(1);
  EXPECT_TRUE(Find(records, "setattr", gone).is_null()) << records.dump(1);

  Remount();
  struct stat again;
  ASSERT_EQ(stat(Path("b").c_str(), &again), 0);
  const int64_t shown = after.st_ctim.tv_sec * 1'000'000'000L + after.st_ctim.tv_nsec;
  const int64_t stored = again.st_ctim.tv_sec * 1'000'000'000L + again.st_ctim.tv_nsec;
  EXPECT_GE(stored, shown);
  EXPECT_LT(stored, shown + 1'000'000'000L);
}

TEST_F(FcladmTest, OnOffAndState) {
  json state = RunJson({"state", "--json", mnt_});
  EXPECT_EQ(state["state"], "on");
  const uint64_t records = state["records"];
  EXPECT_GT(records, 0u);  // mkdstfs's policy assignment at least
  EXPECT_EQ(state["last_seq"].get<int64_t>() - state["first_seq"].get<int64_t>() + 1,
            static_cast<int64_t>(records));
  CommandResult text = Tool("fcladm", {"state", mnt_});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.output, "FCL on: " + std::to_string(records) + " records, seq " +
                             std::to_string(state["first_seq"].get<int64_t>()) + ".." +
                             std::to_string(state["last_seq"].get<int64_t>()) + "\n");

  CommandResult off = Tool("fcladm", {"off", mnt_});
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(Contains(off.output, "FCL off:")) << off.output;
  EXPECT_EQ(RunJson({"state", "--json", mnt_})["state"], "off");
  const int64_t off_seq = LastSeq();
  EXPECT_EQ(Records({"-s", std::to_string(off_seq)})[0]["detail"], "off");

  // While off, nothing is recorded.
  WriteFile(Path("quiet"), "unlogged");
  ASSERT_EQ(rename(Path("quiet").c_str(), Path("quiet2").c_str()), 0);
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
  EXPECT_EQ(LastSeq(), off_seq);
  EXPECT_EQ(Tool("fcladm", {"off", mnt_}).exit_code, 0);  // already off: no change
  EXPECT_EQ(LastSeq(), off_seq);

  // The state survives a remount.
  Remount();
  EXPECT_EQ(RunJson({"state", "--json", mnt_})["state"], "off");

  ASSERT_EQ(Tool("fcladm", {"on", mnt_}).exit_code, 0);
  json after_on = Records({"-s", std::to_string(off_seq + 1)});
  ASSERT_EQ(after_on.size(), 1u) << after_on.dump(1);
  EXPECT_EQ(after_on[0]["event"], "fcl");
  EXPECT_EQ(after_on[0]["detail"], "on");
  ASSERT_EQ(unlink(Path("quiet2").c_str()), 0);
  json now = Records({"-s", std::to_string(off_seq + 2)});
  ASSERT_FALSE(now.empty());
  EXPECT_EQ(now[0]["event"], "unlink");
  EXPECT_EQ(now[0]["name"], "quiet2");
}

TEST_F(FcladmTest, PrintFromSequenceTimeAndCount) {
  for (int i = 0; i < 6; ++i) WriteFile(Path("f" + std::to_string(i)), "data");
  for (int i = 0; i < 6; ++i) ASSERT_EQ(unlink(Path("f" + std::to_string(i)).c_str()), 0);
  // Each unlinked file's row goes (FCL "delete") once the kernel's FORGET for
  // it arrives, which the kernel sends when it pleases: wait for the six, so
  // that no record arrives between the reads below (bounded: 20 s).
  json all;
  for (int tries = 0; tries < 200; ++tries) {
    ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
    all = Records();
    size_t deletes = 0;
    for (const json& r : all) deletes += r["event"] == "delete";
    if (deletes == 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(all.size(), 12u);

  // -s SEQ: from that record on.
  const int64_t mid = all[all.size() / 2]["seq"];
  json from_mid = Records({"-s", std::to_string(mid)});
  ASSERT_FALSE(from_mid.empty());
  EXPECT_EQ(from_mid[0]["seq"], mid);
  EXPECT_EQ(from_mid.back()["seq"], all.back()["seq"]);
  EXPECT_EQ(from_mid.size(), all.size() - all.size() / 2);

  // -n COUNT: at most that many, from the start or from SEQ.
  json three = Records({"-n", "3"});
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0]["seq"], all[0]["seq"]);
  json two = Records({"-s", std::to_string(mid), "-n", "2"});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]["seq"], mid);
  EXPECT_EQ(two[1]["seq"], from_mid[1]["seq"]);

  // -t TIME, epoch seconds with nanoseconds: exactly the records at or after it.
  size_t split = all.size() / 2;
  while (split + 1 < all.size() && all[split]["time_ns"] == all[split - 1]["time_ns"]) ++split;
  const int64_t t = all[split]["time_ns"];
  char arg[64];
  std::snprintf(arg, sizeof arg, "%" PRId64 ".%09" PRId64, t / 1'000'000'000, t % 1'000'000'000);
  json from_t = Records({"-t", arg});
  size_t expected = 0;
  for (const json& r : all) expected += r["time_ns"].get<int64_t>() >= t;
  EXPECT_EQ(from_t.size(), expected) << arg;
  ASSERT_FALSE(from_t.empty());
  EXPECT_EQ(from_t[0]["time_ns"], t) << arg;
  for (const json& r : from_t) EXPECT_GE(r["time_ns"].get<int64_t>(), t);

  // ISO 8601: a time in the past gives everything, one in the future nothing.
  EXPECT_EQ(Records({"-t", "2001-01-01T00:00:00Z"}).size(), all.size());
  EXPECT_EQ(Records({"-t", "2001-01-01"}).size(), all.size());
  EXPECT_TRUE(Records({"-t", "2200-01-01T00:00:00+02:00"}).empty());
  CommandResult none = Tool("fcladm", {"print", "-t", "2200-01-01T00:00:00Z", mnt_});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.output, "No records.\n");
  // -t and -s together: both bounds hold.
  EXPECT_EQ(Records({"-t", "2001-01-01", "-s", std::to_string(mid)}).size(), from_mid.size());

  // Bad arguments are usage errors.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"print", "-t", "yesterday", mnt_},
           {"print", "-s", "x", mnt_},
           {"print", "-n", "-3", mnt_},
           {"print", "-t", "2026-13-01", mnt_},
           {"print", "-t", "2999-01-01T00:00:00Z", mnt_},  // past the nanosecond clock's end
           {"print", "-t", "99999999999", mnt_},
           {"state", "-n", "3", mnt_},
           {"print"},
           {"rewind", mnt_},
       }) {
    CommandResult r = Tool("fcladm", args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.output;
  }
}

TEST_F(FcladmTest, SyncRecordsIoStatistics) {
  // O_DIRECT so the writes and reads reach the daemon, not the page cache.
  constexpr size_t kSize = 3 * 4096;
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, kSize), 0);
  std::memset(buf, 'z', kSize);
  int fd = open(Path("io").c_str(), O_CREAT | O_RDWR | O_DIRECT, 0644);
  ASSERT_GE(fd, 0) << strerror(errno);
  ASSERT_EQ(pwrite(fd, buf, kSize, 0), static_cast<ssize_t>(kSize));
  ASSERT_EQ(pread(fd, buf, 4096, 0), 4096);
  ASSERT_EQ(pread(fd, buf, 4096, 4096), 4096);
  close(fd);
  free(buf);
  const uint64_t ino = Ino("io");
  const int64_t before = LastSeq();
  CommandResult sync = Tool("fcladm", {"sync", "--json", mnt_});
  ASSERT_EQ(sync.exit_code, 0) << sync.output;
  EXPECT_EQ(json::parse(sync.output)["state"], "on");

  json records = Records();
  uint64_t rbytes = 0, wbytes = 0, reads = 0, writes = 0;
  for (const json& r : records) {
    if (r["event"] != "filestats" || r["ino"] != ino) continue;
    auto n = DetailNumbers(r["detail"]);
    rbytes += n["rbytes"];
    wbytes += n["wbytes"];
    reads += n["reads"];
    writes += n["writes"];
  }
  EXPECT_EQ(wbytes, kSize) << records.dump(1);
  EXPECT_EQ(rbytes, 2 * 4096u) << records.dump(1);
  EXPECT_GE(writes, 1u);
  EXPECT_EQ(reads, 2u);
  EXPECT_GE(LastSeq(), before);

  // A second sync with no I/O in between adds no statistics for the file.
  const int64_t after = LastSeq();
  ASSERT_EQ(Tool("fcladm", {"sync", mnt_}).exit_code, 0);
  EXPECT_TRUE(Find(Records({"-s", std::to_string(after + 1)}), "filestats", ino).is_null());
}

TEST_F(FcladmTest, GoneDaemonExitsThree) {
  Unmount();
  for (const std::string action : {"on", "off", "state", "sync", "print"}) {
    CommandResult r = Tool("fcladm", {action, mnt_});
    EXPECT_EQ(r.exit_code, 3) << action << ": " << r.output;
    EXPECT_TRUE(Contains(r.output, "not in a tierfs file system")) << r.output;
  }
  EXPECT_EQ(Tool("fcladm", {"state", root_ + "/missing"}).exit_code, 2);
}

}  // namespace
}  // namespace tierfs::testing
