#include "fs/object_precreator.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

namespace tierfs {

ObjectPrecreator::ObjectPrecreator(VolumeSet& volumes, size_t target)
    : volumes_(volumes), target_(target) {
  volumes_.SetOnPoolLow([this] { Wake(); });
  thread_ = std::thread([this] { Run(); });
}

ObjectPrecreator::~ObjectPrecreator() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  volumes_.SetOnPoolLow(nullptr);
}

size_t ObjectPrecreator::made() const {
  std::lock_guard lock(mu_);
  return made_;
}

void ObjectPrecreator::Wake() {
  {
    std::lock_guard lock(mu_);
    pending_ = true;
  }
  cv_.notify_one();
}

void ObjectPrecreator::Run() {
  // Idle CPU only: ahead of a lone writer its creates cost nothing, but on
  // busy CPUs the create in tmp/ plus the rename into place costs more than
  // the create in place it replaces (the pool then stays empty and creates
  // make their objects themselves).
  sched_param param{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return pending_ || stop_; });
    if (stop_) return;
    pending_ = false;
    lock.unlock();
    size_t made = 0;
    for (uint32_t id : volumes_.TakeLowPools()) {
      // One object at a time, so that a stop waits for one create at most.
      for (;;) {
        {
          std::lock_guard check(mu_);
          if (stop_) break;
        }
        const size_t one = volumes_.Precreate(id, std::min(volumes_.PooledObjects(id) + 1,
                                                           target_));
        if (one == 0) break;
        made += one;
      }
    }
    lock.lock();
    made_ += made;
  }
}

}  // namespace tierfs
