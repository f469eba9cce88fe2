#include "fs/volume/object_precreator.h"

#include <pthread.h>
#include <sched.h>

namespace tierfs {

ObjectPrecreator::ObjectPrecreator(VolumeSet& volumes, size_t target)
    : volumes_(volumes), target_(target) {
  volumes_.SetOnPoolLow([this] { Wake(); });
  thread_ = std::thread([this] { Run(); });
}

ObjectPrecreator::~ObjectPrecreator() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  thread_.join();
  volumes_.SetOnPoolLow(nullptr);
}

void ObjectPrecreator::Wake() {
  {
    MutexLock lock(mu_);
    pending_ = true;
  }
  cv_.NotifyOne();
}

void ObjectPrecreator::Run() {
  // Idle CPU only: ahead of a lone writer its creates cost nothing, but on
  // busy CPUs the create in tmp/ plus the rename into place costs more than
  // the create in place it replaces (the pool then stays empty and creates
  // make their objects themselves).
  sched_param param{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  MutexLock lock(mu_);
  for (;;) {
    while (!pending_ && !stop_) cv_.Wait(mu_);
    if (stop_) return;
    pending_ = false;
    lock.Unlock();
    // Asked before each object, so that a stop waits for one create at most.
    auto stopping = [this] {
      MutexLock check(mu_);
      return stop_;
    };
    for (uint32_t id : volumes_.TakeLowPools()) volumes_.Precreate(id, target_, stopping);
    lock.Lock();
  }
}

}  // namespace tierfs
