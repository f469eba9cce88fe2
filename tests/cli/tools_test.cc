// fsppadm, fcladm and fsmap run in-process against a fake daemon: a
// ControlServer with canned answers, found through a fake mount table that
// declares a plain temporary directory a fuse.tierfs mount.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <mutex>
#include <sstream>

#include "cli/common/cli_env.h"
#include "cli/mkdstfs/default_policy.h"
#include "cli/common/exit_codes.h"
#include "cli/fcladm/fcladm.h"
#include "cli/fsmap/fsmap.h"
#include "cli/fsppadm/fsppadm.h"
#include "cli/common/units.h"
#include "fs/control/control_server.h"
#include "fs/volume/volume_label.h"
#include "temp_dir.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;
using tierfs::testing::ReadFile;
using tierfs::testing::TempDir;
using tierfs::testing::WriteFile;

constexpr char kBadPolicy[] =
    "<?xml version=\"1.0\"?>\n"
    "<PLACEMENT_POLICY Version=\"5.1\" Name=\"bad\">\n"
    "  <RULE Flags=\"data\" Name=\"r\">\n"
    "    <SELECT><PATTERN>a/b</PATTERN></SELECT>\n"
    "  </RULE>\n"
    "</PLACEMENT_POLICY>\n";

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mnt_ = dir_ / "mnt";
    meta_ = dir_ / "meta";
    ASSERT_EQ(mkdir(mnt_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((mnt_ + "/a").c_str(), 0755), 0);
    WriteFile(mnt_ + "/a/f", "data");
    ASSERT_EQ(mkdir(meta_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(TierfsDir(meta_).c_str(), 0700), 0);
    WriteFile(dir_ / "mountinfo",
              "27 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
              "40 27 0:39 / " +
                  mnt_ + " rw,nosuid - fuse.tierfs " + meta_ + " rw\n");
    env_.out = &out_;
    env_.err = &err_;
    env_.mountinfo_path = dir_ / "mountinfo";
    StartServer();
  }

  void StartServer() {
    auto server = ControlServer::Start(
        ControlSocketPath(meta_), getuid(),
        [this](const json& request, const ControlPeer&, ControlReply& reply) -> Result<json> {
          std::lock_guard lock(mu_);
          requests_.push_back(request);
          if (request["op"] == "scan") {
            reply.Progress(json{{"phase", "scan"}, {"done", 1}, {"total", 1}});
            return scan_result_;
          }
          if (request["op"] == "get_policy") {
            return json{{"policy",
                         {{"name", "IOTEMP_Policy"},
                          {"xml", std::string(kDefaultPolicyXml)},
                          {"assigned_ns", 1}}}};
          }
          if (request["op"] == "assign" || request["op"] == "validate") {
            if (!request.value("force", false)) {
              return Status::Invalid("line 9: <CLASS>: class \"hdd\" has no volume");
            }
            return json{{"name", "IOTEMP_Policy"},
                        {"warnings", {"line 9: <CLASS>: no hdd volume"}}};
          }
          if (request["op"] == "unassign") return json::object();
          if (request["op"] == "fsmap") {
            json files = json::array();
            for (const json& ino : request["inos"]) {
              files.push_back({{"ino", ino},
                               {"volume", "vol1"},
                               {"volume_id", 1},
                               {"class", "ssdmetadata"},
                               {"size", 4},
                               {"path", "/a/f"}});
            }
            return json{{"files", files}};
          }
          if (request["op"] == "fcl") {
            if (request["action"] == "print") {
              return json{{"records",
                           {{{"seq", 7},
                             {"time_ns", 1795341600000000000},
                             {"event", "create"},
                             {"ino", 3},
                             {"parent", 1},
                             {"name", "f"},
                             {"detail", ""}}}}};
            }
            return json{{"state", "on"}, {"records", 7}, {"first_seq", 1}, {"last_seq", 7}};
          }
          return Status::Invalid("unexpected op");
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  json LastRequest() {
    std::lock_guard lock(mu_);
    return requests_.empty() ? json() : requests_.back();
  }

  int Fsppadm(std::vector<std::string> args) {
    args.insert(args.begin(), "fsppadm");
    return FsppadmMain(args, env_);
  }

  TempDir dir_;
  std::string mnt_, meta_;
  std::ostringstream out_, err_;
  CliEnv env_;
  std::unique_ptr<ControlServer> server_;
  std::mutex mu_;
  std::vector<json> requests_;
  json scan_result_ = json::parse(R"({"policy":"p","mode":"enforce","seconds":0.5,
      "rows":[{"path":"/a/f","action":"relocate","rule":"r","statement":"RELOCATE 1",
               "from_class":"hdd","from_volume":"vol2","to_class":"ssd","to_volume":"vol1",
               "bytes":4,"outcome":"moved"}],
      "summary":{"sweep_paths":["/a"],"files_scanned":1,"files_moved":1,"bytes_moved":4,
                 "files_skipped":{"nospace":0,"busy":0,"error":0}},
      "classes":[{"class":"ssd","size_bytes":1048576,"free_before":1048576,"free_after":1044480}]})");
};

TEST_F(ToolsTest, EnforceSendsMountRelativePathsAndOptions) {
  EXPECT_EQ(Fsppadm({"enforce", "-C", "-T", "ssd", "-T", "hdd", "-s", "1M", "-n", "5", "-t", "0.5",
                     mnt_ + "/a", mnt_ + "/a/f"}),
            kExitOk)
      << err_.str();
  json r = LastRequest();
  EXPECT_EQ(r["op"], "scan");
  EXPECT_EQ(r["mode"], "enforce");
  EXPECT_EQ(r["active_only"], true);
  EXPECT_EQ(r["classes"], (json{"ssd", "hdd"}));
  EXPECT_EQ(r["paths"], (json{"/a", "/a/f"}));
  EXPECT_EQ(r["policy_xml"], nullptr);
  EXPECT_EQ(r["limits"]["bytes"], 1 << 20);
  EXPECT_EQ(r["limits"]["files"], 5);
  EXPECT_EQ(r["limits"]["seconds"], 1800);
  EXPECT_NE(out_.str().find(mnt_ + "/a/f\n"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("Files moved    : 1\n"), std::string::npos) << out_.str();
  EXPECT_EQ(err_.str(), "");  // stderr is not a terminal here: no progress line
}

TEST_F(ToolsTest, MountPointAloneSweepsTheRoot) {
  EXPECT_EQ(Fsppadm({"query", mnt_}), kExitOk) << err_.str();
  EXPECT_EQ(LastRequest()["paths"], json{"/"});
  EXPECT_EQ(LastRequest()["mode"], "query");
}

TEST_F(ToolsTest, ProgressLineOnATerminal) {
  env_.err_is_terminal = true;
  EXPECT_EQ(Fsppadm({"enforce", mnt_}), kExitOk);
  EXPECT_NE(err_.str().find("\renforce: scan 1/1 100%"), std::string::npos) << err_.str();
  EXPECT_EQ(err_.str().substr(err_.str().size() - 4), "\r\x1b[K");  // cleared at the end
}

TEST_F(ToolsTest, ReportFileAndJson) {
  std::string report = dir_ / "report.txt";
  EXPECT_EQ(Fsppadm({"analyze", "-a", "-r", report, mnt_}), kExitOk) << err_.str();
  EXPECT_NE(ReadFile(report).find("Access Time"), std::string::npos);
  EXPECT_EQ(out_.str().find("Current Class"), std::string::npos);  // rows only in the file
  EXPECT_NE(out_.str().find("Files scanned"), std::string::npos);
  out_.str("");
  EXPECT_EQ(Fsppadm({"enforce", "--json", mnt_}), kExitOk);
  json j = json::parse(out_.str());
  EXPECT_EQ(j["summary"]["files_moved"], 1);
}

TEST_F(ToolsTest, FailedFilesExitOne) {
  scan_result_["rows"][0]["outcome"] = "error: Input/output error";
  scan_result_["summary"]["files_skipped"]["error"] = 1;
  EXPECT_EQ(Fsppadm({"enforce", mnt_}), kExitFailed);
}

TEST_F(ToolsTest, LocalPolicyFileIsCheckedFirst) {
  std::string bad = dir_ / "bad.xml";
  WriteFile(bad, kBadPolicy);
  EXPECT_EQ(Fsppadm({"enforce", "-F", bad, mnt_}), kExitUsage);
  EXPECT_NE(err_.str().find(bad + ":4: <PATTERN>: "), std::string::npos) << err_.str();
  EXPECT_TRUE(LastRequest().is_null());  // the daemon was never asked
  err_.str("");
  EXPECT_EQ(Fsppadm({"validate", bad}), kExitUsage);
  EXPECT_NE(err_.str().find(bad + ":4: <PATTERN>: "), std::string::npos) << err_.str();
  EXPECT_EQ(Fsppadm({"enforce", "-F", dir_ / "missing.xml", mnt_}), kExitUsage);
}

TEST_F(ToolsTest, ValidateAloneAndAgainstAMount) {
  std::string good = dir_ / "good.xml";
  WriteFile(good, kDefaultPolicyXml);
  EXPECT_EQ(Fsppadm({"validate", good}), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(), good + ": valid (policy IOTEMP_Policy)\n");
  out_.str("");
  // The fake daemon refuses without -f, with a diagnostic in the daemon's form.
  EXPECT_EQ(Fsppadm({"validate", mnt_, good}), kExitUsage);
  EXPECT_NE(err_.str().find(good + ":9: <CLASS>: class \"hdd\" has no volume\n"), std::string::npos)
      << err_.str();
  err_.str("");
  EXPECT_EQ(Fsppadm({"validate", "-f", mnt_, good}), kExitOk);
  EXPECT_EQ(LastRequest()["force"], true);
  EXPECT_EQ(LastRequest()["xml"], std::string(kDefaultPolicyXml));
  EXPECT_EQ(err_.str(), good + ":9: <CLASS>: warning: no hdd volume\n");
  EXPECT_EQ(out_.str(), good + ": valid for " + mnt_ + "\n");
}

TEST_F(ToolsTest, AssignUnassignPrintList) {
  std::string good = dir_ / "good.xml";
  WriteFile(good, kDefaultPolicyXml);
  EXPECT_EQ(Fsppadm({"assign", "-f", mnt_, good}), kExitOk) << err_.str();
  EXPECT_EQ(LastRequest()["op"], "assign");
  EXPECT_EQ(Fsppadm({"unassign", mnt_}), kExitOk);
  EXPECT_EQ(LastRequest()["op"], "unassign");
  out_.str("");
  EXPECT_EQ(Fsppadm({"print", mnt_}), kExitOk);
  EXPECT_EQ(out_.str(), kDefaultPolicyXml);
  out_.str("");
  EXPECT_EQ(Fsppadm({"list"}), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find(mnt_ + "  IOTEMP_Policy"), std::string::npos) << out_.str();
  out_.str("");
  EXPECT_EQ(Fsppadm({"list", "--json"}), kExitOk);
  EXPECT_EQ(json::parse(out_.str())["mounts"][0]["policy"]["name"], "IOTEMP_Policy");
}

TEST_F(ToolsTest, UnreachableDaemonAndForeignPathsExitThree) {
  EXPECT_EQ(Fsppadm({"enforce", "/"}), kExitUnreachable);
  EXPECT_NE(err_.str().find("/ is not in a tierfs file system"), std::string::npos) << err_.str();
  EXPECT_EQ(Fsppadm({"enforce", mnt_ + "/nope"}), kExitUsage);  // no such path
  server_->Stop();
  err_.str("");
  EXPECT_EQ(Fsppadm({"print", mnt_}), kExitUnreachable);
  EXPECT_NE(err_.str().find("cannot reach the tierfs daemon of " + mnt_), std::string::npos)
      << err_.str();
  std::vector<std::string> fcl = {"fcladm", "state", mnt_};
  EXPECT_EQ(FcladmMain(fcl, env_), kExitUnreachable);
  std::vector<std::string> map = {"fsmap", mnt_ + "/a/f"};
  EXPECT_EQ(FsmapMain(map, env_), kExitUnreachable);
}

TEST_F(ToolsTest, PathsOfAnotherMountAreRefused) {
  EXPECT_EQ(Fsppadm({"enforce", mnt_, dir_.path()}), kExitUsage);
}

TEST_F(ToolsTest, FcladmPrintAndState) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::vector<std::string> args = {"fcladm", "print", "-s", "5", "-t", "2026-11-22T10:00:00Z",
                                   "-n",     "10",    mnt_};
  EXPECT_EQ(FcladmMain(args, env_), kExitOk) << err_.str();
  json r = LastRequest();
  EXPECT_EQ(r["action"], "print");
  EXPECT_EQ(r["from_seq"], 5);
  EXPECT_EQ(r["from_time_ns"], 1795341600000000000);
  EXPECT_EQ(r["limit"], 10);
  EXPECT_EQ(out_.str(),
            "SEQ  TIME                 EVENT   INO  NAME  DETAIL\n"
            "  7  2026-11-22T10:00:00  create    3  f     -\n");
  out_.str("");
  args = {"fcladm", "on", mnt_};
  EXPECT_EQ(FcladmMain(args, env_), kExitOk);
  EXPECT_EQ(out_.str(), "FCL on: 7 records, seq 1..7\n");
  EXPECT_EQ(LastRequest()["action"], "on");
  args = {"fcladm", "print", "-t", "noon", mnt_};
  EXPECT_EQ(FcladmMain(args, env_), kExitUsage);
  args = {"fcladm", "state", "-s", "1", mnt_};  // -s is for print only
  EXPECT_EQ(FcladmMain(args, env_), kExitUsage);
  EXPECT_NE(err_.str().find("fcladm: state: unknown option -s"), std::string::npos) << err_.str();
  unsetenv("TZ");
  tzset();
}

TEST_F(ToolsTest, FsmapSendsInodeNumbers) {
  struct stat st;
  ASSERT_EQ(stat((mnt_ + "/a/f").c_str(), &st), 0);
  std::vector<std::string> args = {"fsmap", mnt_ + "/a/f"};
  EXPECT_EQ(FsmapMain(args, env_), kExitOk) << err_.str();
  EXPECT_EQ(LastRequest()["inos"], json{st.st_ino});
  EXPECT_EQ(out_.str(),
            "VOLUME  CLASS        SIZE  FILE\n"
            "vol1    ssdmetadata     4  " +
                mnt_ + "/a/f\n");
  out_.str("");
  args = {"fsmap", "--json", mnt_ + "/a/f", mnt_ + "/missing"};
  EXPECT_EQ(FsmapMain(args, env_), kExitUsage);
  json j = json::parse(out_.str());
  EXPECT_EQ(j["files"][0]["file"], mnt_ + "/a/f");
  args = {"fsmap", "-q", mnt_};
  EXPECT_EQ(FsmapMain(args, env_), kExitUsage);
  EXPECT_NE(err_.str().find("fsmap: unknown option -q"), std::string::npos);
}

}  // namespace
}  // namespace tierfs::cli
