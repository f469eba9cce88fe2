#include "tests/store/object_volume_fixture.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/ceph_s3_options.h"

namespace tierfs::testing {

std::string ToClassPolicy(const std::string& to) {
  return R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="to_)" + to + R"(">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>cloud</CLASS></DESTINATION>
                <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>)" + to + R"(</CLASS></DESTINATION></TO></RELOCATE></RULE>
</PLACEMENT_POLICY>
)";
}

const char kHotBackPolicy[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="hot_back">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE><TO><DESTINATION><CLASS>hdd</CLASS></DESTINATION></TO>
      <WHEN><IOTEMP Type="nrbytes"><MIN Flags="gt">0</MIN>
        <PERIOD Units="hours">1</PERIOD></IOTEMP></WHEN></RELOCATE></RULE>
</PLACEMENT_POLICY>
)";

std::string ReadFileIfAny(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? ReadFile(path) : "";
}

int ReadErrno(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) return errno;
  void* aligned = nullptr;
  if (posix_memalign(&aligned, 4096, 1 << 20) != 0) {
    close(fd);
    return ENOMEM;
  }
  int err = 0;
  for (;;) {
    ssize_t n = read(fd, aligned, 1 << 20);
    if (n < 0) {
      err = errno;
      break;
    }
    if (n == 0) break;
  }
  free(aligned);
  close(fd);
  return err;
}

void ObjectVolumeTest::SetUp() {
  std::string why;
  cluster_ = CephEnvironment::Cluster(&why);
  ASSERT_NE(cluster_, nullptr) << "the Ceph cluster did not start: " << why;
  TierfsFixture::SetUp();
  if (HasFatalFailure() || IsSkipped()) return;
  auto client = S3Client::Create(CephS3ClientOptions(*cluster_));
  ASSERT_TRUE(client.ok()) << client.status().message();
  s3_ = std::move(*client);
  // A bucket per test, named after it: bucket names are lower case, 3-63 chars.
  static int counter = 0;
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string cleaned;
  for (char c : name) {
    cleaned += std::isalnum(static_cast<unsigned char>(c)) ? std::tolower(c) : '-';
  }
  bucket_ = ("ov" + std::to_string(++counter) + "-" + cleaned).substr(0, 40);
  while (!std::isalnum(static_cast<unsigned char>(bucket_.back()))) bucket_.pop_back();
  ASSERT_TRUE(s3_->CreateBucket(bucket_).ok());
  credentials_ = root_ + "/s3.cred";
  WriteFile(credentials_, "access_key = " + cluster_->access_key() +
                              "\nsecret_key = " + cluster_->secret_key() + "\n");
  ASSERT_EQ(chmod(credentials_.c_str(), 0600), 0);
}

void ObjectVolumeTest::TearDown() {
  // The gateway back for the next test, whatever this one did to it.
  // A frozen one is thawed, a stopped one started (each call fails harmlessly
  // when the gateway is in the other state); then it must answer.
  if (cluster_ != nullptr && gateway_down_) {
    (void)cluster_->ThawGateway();
    (void)cluster_->StartGateway();
    if (s3_ != nullptr && !bucket_.empty()) {
      Status st = s3_->HeadBucket(bucket_);
      EXPECT_TRUE(st.ok()) << "the gateway did not come back: " << st.message();
    }
  }
  TierfsFixture::TearDown();
  if (s3_ == nullptr || bucket_.empty()) return;
  if (auto uploads = s3_->ListMultipartUploads(bucket_, ""); uploads.ok()) {
    for (const S3MultipartUpload& u : *uploads) s3_->AbortMultipartUpload(bucket_, u.key, u.upload_id);
  }
  for (const std::string& key : Keys()) s3_->DeleteObject(bucket_, key);
  EXPECT_TRUE(s3_->DeleteBucket(bucket_).ok());
}

void ObjectVolumeTest::AddStore(const std::string& endpoint) {
  CommandResult r =
      Tool("fsvoladm", {"add", "--endpoint", endpoint.empty() ? cluster_->endpoint() : endpoint,
                        "--credentials", credentials_, mnt_, Url() + ":cloud"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

std::vector<std::string> ObjectVolumeTest::Keys() {
  std::vector<std::string> keys;
  std::string token;
  do {
    auto page = s3_->ListObjects(bucket_, "", token);
    if (!page.ok()) {
      ADD_FAILURE() << page.status().message();
      break;
    }
    for (const S3ListedObject& o : page->objects) keys.push_back(o.key);
    token = page->next_continuation_token;
  } while (!token.empty());
  return keys;
}

size_t ObjectVolumeTest::Uploads() {
  auto uploads = s3_->ListMultipartUploads(bucket_, "");
  if (!uploads.ok()) {
    ADD_FAILURE() << uploads.status().message();
    return 0;
  }
  return uploads->size();
}

size_t ObjectVolumeTest::LocalObjects(const std::string& volume) {
  size_t n = 0;
  std::error_code ec;
  for (auto& e : std::filesystem::recursive_directory_iterator(volume + "/.tierfs/objects", ec)) {
    if (e.is_regular_file()) ++n;
  }
  return n;
}

std::string ObjectVolumeTest::TmpLeftovers(const std::string& volume) {
  std::string list;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(volume + "/.tierfs/tmp", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code size_ec;
    const uintmax_t size = std::filesystem::file_size(it->path(), size_ec);
    if (it->path().filename().string().rfind("free.", 0) == 0 && !size_ec && size == 0) continue;
    list += (list.empty() ? "" : ", ") + it->path().filename().string() + " (" +
            (size_ec ? std::string("not a file") : std::to_string(size) + " B") + ")";
  }
  return list;
}

std::string ObjectVolumeTest::StoreState() {
  CommandResult r = Tool("fsvoladm", {"list", "--json", mnt_}, 30);
  nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
  if (!doc.is_object()) return "";
  for (const auto& v : doc["volumes"]) {
    if (v.value("path", "") == Url()) return v.value("state", "");
  }
  return "";
}

double ObjectVolumeTest::WaitForState(const std::string& want, double seconds) {
  const auto start = Clock::now();
  while (SecondsSince(start) < seconds) {
    if (StoreState() == want) return SecondsSince(start);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ADD_FAILURE() << "the store did not turn " << want << " within " << seconds << " s";
  return seconds;
}

void ObjectVolumeTest::Enforce() {
  CommandResult r = Tool("fsppadm", {"enforce", mnt_}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

bool ObjectVolumeTest::DaemonGone() {
  const std::string lock = ssd_ + "/.tierfs/daemon.lock";
  for (int i = 0; i < 200; ++i) {
    int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return true;
    const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    if (free) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace tierfs::testing
