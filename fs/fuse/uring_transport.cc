#include "fs/fuse/uring_transport.h"

#include <liburing.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <fuse_lowlevel.h>

#include "common/log.h"
#include "common/page.h"
#include "common/shared_mutex.h"
#include "common/thread_annotations.h"
#include "fs/fuse/passthrough.h"
#include "fs/fuse/receive_buffer.h"
#include "fs/fuse/serving_request.h"

namespace tierfs {
namespace {

// ---- The ring ABI of Linux's include/uapi/linux/fuse.h (7.42), absent from
// Debian 12's headers.
constexpr uint32_t kFlags2OverIoUring = 1u << 9;  // FUSE_OVER_IO_URING, bit 41 of the flags
constexpr uint32_t kCmdRegister = 1;              // FUSE_IO_URING_CMD_REGISTER
constexpr uint32_t kCmdCommitAndFetch = 2;        // FUSE_IO_URING_CMD_COMMIT_AND_FETCH

struct RingEntInOut {  // struct fuse_uring_ent_in_out
  uint64_t flags;
  uint64_t commit_id;    // the request's, echoed by its commit
  uint32_t payload_sz;   // bytes of the payload buffer in use, either way
  uint32_t padding;
  uint64_t reserved;
};
struct RingHeader {     // struct fuse_uring_req_header: the first of an entry's two buffers
  char in_out[128];     // fuse_in_header of a request, fuse_out_header of its reply
  char op_in[128];      // the request's first argument (its per-operation struct)
  RingEntInOut ent;
};
struct RingCmd {        // struct fuse_uring_cmd_req, in the 128-byte SQE's command area
  uint64_t flags;
  uint64_t commit_id;
  uint16_t qid;         // the CPU whose queue the entry serves
  uint8_t padding[6];
};
static_assert(sizeof(RingEntInOut) == 32 && sizeof(RingHeader) == 288 && sizeof(RingCmd) == 24);

// Room in front of the payload for the rebuilt fuse_in_header and first argument:
// a page, so that the payload (a WRITE's bytes) starts on one (fs/fuse/receive_buffer.h).
constexpr size_t kFront = kPageBytes;
static_assert(sizeof(fuse_in_header) + sizeof(RingHeader::op_in) <= kFront);

struct Ring;

struct Entry {
  RingHeader header;
  AlignedBytes buffer;  // kFront + payload; left uninitialized (touched on use)
  iovec iov[2];
  Ring* ring = nullptr;
  uint64_t unique = 0;  // of the request being served
  bool replied = false;
};

struct Ring {
  io_uring uring;  // made before the Ring joins State::rings
  int cpu = 0;
  std::vector<std::unique_ptr<Entry>> entries;
  std::thread thread;
};

// The entry whose request this thread is serving (its handler's reply goes there).
thread_local Entry* current_entry = nullptr;

}  // namespace

struct UringTransport::State {
  fuse_session* se = nullptr;
  int fd = -1;
  // The INIT request (while its reply is pending) and whether it offered io_uring.
  // Read by every hook call; atomic, as libfuse's worker threads all call them.
  std::atomic<uint64_t> init_unique{0};
  std::atomic<bool> init_seen{false};
  std::atomic<bool> offered{false};
  bool want_rings = true;  // Install's make_rings
  std::atomic<bool> killpriv_v2_offered{false};
  std::vector<std::unique_ptr<Ring>> rings;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> served{0};
  std::atomic<uint64_t> lost_replies{0};
  // A ring thread's writes to /dev/fuse (notifications) hold it shared;
  // CloseDevice takes it to end them.
  SharedMutex device_mu;
  bool device_closed GUARDED_BY(device_mu) = false;

  // Makes every ring and its entries for payloads up to `payload` bytes. False
  // (logged, everything freed) when one cannot be made.
  bool MakeRings(size_t payload);
  void StartThreads();
  void Serve(Ring* ring);
  void ServeRequest(Entry* entry);
  void Submit(Ring* ring, Entry* entry, uint32_t command);
  ssize_t ReplyToEntry(Entry* entry, const iovec* iov, int count);
};

namespace {

UringTransport::State* g_state = nullptr;  // the custom I/O callbacks' context

ssize_t ReadHook(int fd, void* buf, size_t len, void*) {
  // A worker's own buffer (fs/fuse/receive_buffer.h) may be smaller than libfuse's idea.
  if (const size_t capacity = ThreadReceiveCapacity(); capacity != 0) {
    len = std::min(len, capacity);
  }
  const ssize_t n = read(fd, buf, len);
  // The worker that read it serves it, in this thread.
  SetServingRequest(n > 0 ? buf : nullptr, n > 0 ? static_cast<size_t>(n) : 0);
  UringTransport::State* s = g_state;
  if (!s->init_seen.load(std::memory_order_relaxed) &&
      n >= static_cast<ssize_t>(sizeof(fuse_in_header) + sizeof(fuse_init_in))) {
    const auto* in = static_cast<const fuse_in_header*>(buf);
    if (in->opcode == FUSE_INIT) {
      const auto* init = reinterpret_cast<const fuse_init_in*>(in + 1);
      s->offered = (init->flags & FUSE_INIT_EXT) != 0 && (init->flags2 & kFlags2OverIoUring) != 0;
      s->killpriv_v2_offered = (init->flags & FUSE_HANDLE_KILLPRIV_V2) != 0;
      NotePassthroughOffer(init->flags, init->flags2);
      s->init_unique = in->unique;
      s->init_seen = true;
    }
  }
  return n;
}

ssize_t WritevHook(int fd, iovec* iov, int count, void*) {
  UringTransport::State* s = g_state;
  const auto* out = static_cast<const fuse_out_header*>(iov[0].iov_base);
  ApplyOpenReplyMark(iov, count);  // an OPEN or CREATE answered by passthrough
  if (Entry* entry = current_entry; entry != nullptr && out->unique == entry->unique) {
    return s->ReplyToEntry(entry, iov, count);
  }
  const uint64_t init_unique = s->init_unique.load();
  const bool init_reply = init_unique != 0 && out->unique == init_unique && count >= 2 &&
                          iov[1].iov_len >= sizeof(fuse_init_out) && out->error == 0;
  bool advertise = false;
  if (init_reply) {
    s->init_unique = 0;
    auto* init = static_cast<fuse_init_out*>(iov[1].iov_base);
    AmendInitReplyForPassthrough(init, iov[1].iov_len);
    if (s->killpriv_v2_offered) {
      init->flags |= FUSE_HANDLE_KILLPRIV_V2;
    } else {
      LogInfo("the kernel does not offer FUSE_HANDLE_KILLPRIV_V2: it asks for "
              "security.capability before every write");
    }
    if (!s->want_rings) {
      // --io_uring=false: /dev/fuse only, and nothing to log.
    } else if (!s->offered) {
      LogInfo("io_uring: the kernel does not offer it (set /sys/module/fuse/parameters/"
              "enable_uring to 1 before mounting); serving over /dev/fuse");
    } else {
      // The kernel sizes every entry's payload buffer by what INIT agreed.
      const size_t payload = std::max<size_t>(
          {size_t{8192}, size_t{init->max_write}, size_t{init->max_pages} * kPageBytes});
      advertise = s->MakeRings(payload);
      if (advertise) {
        init->flags |= FUSE_INIT_EXT;
        init->flags2 |= kFlags2OverIoUring;
      }
    }
  }
  // A ring thread's write here (a notification sent while it serves) may come
  // during the stop: CloseDevice ends those. /dev/fuse's own workers are joined
  // before the stop, so their replies take no lock.
  ReaderLock device(s->device_mu, std::defer_lock);
  if (current_entry != nullptr) {
    device.Lock();
    if (s->device_closed) {
      errno = ENODEV;
      return -1;
    }
  }
  const ssize_t written = writev(fd, iov, count);
  if (advertise && written >= 0) s->StartThreads();
  return written;
}

}  // namespace

bool UringTransport::State::MakeRings(size_t payload) {
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);  // the kernel makes a queue per possible CPU
  for (long cpu = 0; cpu < cpus; ++cpu) {
    for (int t = 0; t < kThreadsPerCpu; ++t) {
      auto ring = std::make_unique<Ring>();
      ring->cpu = static_cast<int>(cpu);
      io_uring_params params{};
      params.flags = IORING_SETUP_SQE128;  // the FUSE commands need 128-byte SQEs
      const int rc = io_uring_queue_init_params(2 * kEntriesPerThread, &ring->uring, &params);
      if (rc < 0) {
        LogWarning("io_uring: cannot make a ring ({}); serving over /dev/fuse", strerror(-rc));
        for (auto& made : rings) io_uring_queue_exit(&made->uring);
        rings.clear();
        return false;
      }
      for (int e = 0; e < kEntriesPerThread; ++e) {
        auto entry = std::make_unique<Entry>();
        entry->buffer = AllocatePageAligned(kFront + payload);
        entry->iov[0] = {&entry->header, sizeof entry->header};
        entry->iov[1] = {entry->buffer.get() + kFront, payload};
        entry->ring = ring.get();
        ring->entries.push_back(std::move(entry));
      }
      rings.push_back(std::move(ring));
    }
  }
  LogInfo("io_uring: {} rings ({} per CPU, one thread each), entries per ring: {}, payload "
          "per entry: {} KiB", rings.size(), kThreadsPerCpu, kEntriesPerThread, payload / 1024);
  return true;
}

void UringTransport::State::StartThreads() {
  for (auto& ring : rings) ring->thread = std::thread([this, r = ring.get()] { Serve(r); });
}

void UringTransport::State::Submit(Ring* ring, Entry* entry, uint32_t command) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring->uring);
  if (sqe == nullptr) {  // never with 2 SQEs per entry; submit what is queued and retry
    io_uring_submit(&ring->uring);
    sqe = io_uring_get_sqe(&ring->uring);
    if (sqe == nullptr) {
      LogError("io_uring: CPU {} ring has no free submission slot; an entry is lost", ring->cpu);
      return;
    }
  }
  std::memset(sqe, 0, 2 * sizeof(io_uring_sqe));  // SQE128: the command area runs past 64 bytes
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = fd;
  sqe->cmd_op = command;
  if (command == kCmdRegister) {
    sqe->addr = reinterpret_cast<uint64_t>(entry->iov);
    sqe->len = 2;
  }
  sqe->user_data = reinterpret_cast<uint64_t>(entry);
  auto* cmd = reinterpret_cast<RingCmd*>(sqe->cmd);
  cmd->qid = static_cast<uint16_t>(ring->cpu);
  cmd->commit_id = command == kCmdCommitAndFetch ? entry->header.ent.commit_id : 0;
  io_uring_submit(&ring->uring);
}

void UringTransport::State::Serve(Ring* ring) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(ring->cpu, &cpus);
  pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);  // serve where requests are made
  for (auto& entry : ring->entries) Submit(ring, entry.get(), kCmdRegister);
  int registrations_retried = 0;
  while (!stopping.load()) {
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec wait{0, 100'000'000};  // notice Stop() within 100 ms
    const int rc = io_uring_wait_cqe_timeout(&ring->uring, &cqe, &wait);
    if (rc == -ETIME || rc == -EINTR) continue;
    if (rc < 0) break;
    auto* entry = reinterpret_cast<Entry*>(cqe->user_data);
    const int result = cqe->res;
    io_uring_cqe_seen(&ring->uring, cqe);
    if (result == -EAGAIN && registrations_retried++ < 100) {
      // A REGISTER that reached the kernel before it had processed the INIT reply.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Submit(ring, entry, kCmdRegister);
      continue;
    }
    if (result < 0) {
      // The connection ended (unmount), or the kernel refused the entry, which
      // turns io_uring off for the connection: /dev/fuse serves from here on.
      if (!stopping.load() && result != -ENOTCONN && result != -ECANCELED) {
        LogWarning("io_uring: CPU {} ring ends: {}", ring->cpu, strerror(-result));
      }
      break;
    }
    ServeRequest(entry);
  }
}

void UringTransport::State::ServeRequest(Entry* entry) {
  const auto* in = reinterpret_cast<const fuse_in_header*>(entry->header.in_out);
  const size_t payload = entry->header.ent.payload_sz;
  const size_t first_arg = in->len - sizeof(fuse_in_header) - payload;
  if (in->len < sizeof(fuse_in_header) + payload || first_arg > sizeof(entry->header.op_in)) {
    LogError("io_uring: malformed request (length {}, payload {})", in->len, payload);
    return;  // the entry stays with us; the kernel times nothing out, so this is a bug
  }
  // The /dev/fuse layout, contiguous: header, first argument, then the payload
  // exactly where the kernel put it.
  char* start = entry->buffer.get() + kFront - sizeof(fuse_in_header) - first_arg;
  std::memcpy(start, in, sizeof(fuse_in_header));
  std::memcpy(start + sizeof(fuse_in_header), entry->header.op_in, first_arg);
  fuse_buf buf{};
  buf.size = in->len;
  buf.mem = start;
  entry->unique = in->unique;
  entry->replied = false;
  const uint32_t opcode = in->opcode;
  current_entry = entry;
  SetServingRequest(start, in->len);
  fuse_session_process_buf(se, &buf);
  SetServingRequest(nullptr, 0);
  current_entry = nullptr;
  served.fetch_add(1, std::memory_order_relaxed);
  if (!entry->replied && lost_replies.fetch_add(1) == 0) {
    LogError("io_uring: the handler of opcode {} did not reply in its thread", opcode);
  }
}

ssize_t UringTransport::State::ReplyToEntry(Entry* entry, const iovec* iov, int count) {
  const auto* out = static_cast<const fuse_out_header*>(iov[0].iov_base);
  std::memcpy(entry->header.in_out, out, sizeof *out);
  // The reply's arguments, without its header, go to the payload buffer.
  char* payload = entry->buffer.get() + kFront;
  const size_t room = entry->iov[1].iov_len;
  size_t used = 0;
  auto append = [&](const char* data, size_t n) {
    n = std::min(n, room - used);
    // Data built in place (UringReplyBuffer) is where it belongs already.
    if (data != payload + used) std::memmove(payload + used, data, n);
    used += n;
  };
  if (iov[0].iov_len > sizeof *out) {
    append(static_cast<const char*>(iov[0].iov_base) + sizeof *out, iov[0].iov_len - sizeof *out);
  }
  for (int i = 1; i < count; ++i) append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  entry->header.ent.payload_sz = static_cast<uint32_t>(used);
  entry->replied = true;
  Submit(entry->ring, entry, kCmdCommitAndFetch);
  return static_cast<ssize_t>(out->len);
}

UringTransport::UringTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}

Result<std::unique_ptr<UringTransport>> UringTransport::Install(fuse_session* se,
                                                                bool make_rings) {
  if (g_state != nullptr) return Status::Invalid("one io_uring transport per process");
  auto state = std::make_unique<State>();
  state->se = se;
  state->want_rings = make_rings;
  state->fd = fuse_session_fd(se);
  g_state = state.get();
  static const fuse_custom_io io = {WritevHook, ReadHook, nullptr, nullptr};
  if (int rc = fuse_session_custom_io(se, &io, state->fd); rc != 0) {
    g_state = nullptr;
    return Status::Error(-rc, "fuse_session_custom_io");
  }
  return std::unique_ptr<UringTransport>(new UringTransport(std::move(state)));
}

void UringTransport::Stop() {
  if (state_->stopping.exchange(true)) return;
  for (auto& ring : state_->rings) {
    if (ring->thread.joinable()) ring->thread.join();
  }
  if (!state_->rings.empty()) {
    LogInfo("io_uring: served {} requests", state_->served.load());
  }
}

void UringTransport::CloseDevice() {
  WriterLock device(state_->device_mu);
  state_->device_closed = true;
}

uint64_t UringTransport::requests() const { return state_->served.load(); }

char* UringReplyBuffer(size_t size) {
  Entry* entry = current_entry;
  if (entry == nullptr || size > entry->iov[1].iov_len) return nullptr;
  return entry->buffer.get() + kFront;
}

UringTransport::~UringTransport() {
  Stop();
  // Exiting a ring cancels its commands in the kernel; only then are the buffers
  // free to go (with the entries, below).
  for (auto& ring : state_->rings) {
    io_uring_queue_exit(&ring->uring);
  }
  g_state = nullptr;
}

}  // namespace tierfs
