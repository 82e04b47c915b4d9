// triage --follow FILE: tail -f with diagnoses (bindings/cli/README.md, "Follow a running job").
//
// Note: [Follow]
// A crash usually ends a log: the traceback is the last thing a dying process writes, so waiting for
// "the next line" to close the incident would wait forever. The follower therefore reports in three
// situations:
//  - while lines keep arriving, each incident as soon as the segmenter completes it;
//  - when the file has been quiet for `settle` seconds, everything new including the incident still
//    open (Session::Snapshot(include_open)), as if the input ended there;
//  - when following stops (--idle-exit, SIGINT, SIGTERM, SIGHUP), the rest, after reading what the
//    file still holds.
// The file's first contents (the backlog) are not reported piecemeal: the first report waits for the
// first quiet moment or for new data, so a complete log gives the same report as without --follow.
// A diagnosis is printed once, keyed by rule and incident start line. Rotation: when the name points
// to a new file (rename and recreate, checked by device and inode) or the file shrinks (truncation),
// what was read is reported, and the new contents are followed from their start. A file renamed
// away stays open and is still read and reported: a writer that does not reopen its log (a shell
// redirection, logrotate without a signal to the program) keeps writing there, crash included. It is
// let go at the next rotation, once its last bytes are read and reported.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "cli.h"

namespace triage::cli {
namespace {

volatile sig_atomic_t g_stop = 0;

void OnStop(int) { g_stop = 1; }

// SIGINT/SIGTERM/SIGHUP end the follow loop instead of the process; no SA_RESTART, so a sleep wakes.
void CatchStopSignals() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnStop;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

using Clock = std::chrono::steady_clock;

class Follower {
 public:
  Follower(const std::string& name, const std::shared_ptr<const RuleSet>& rules, const DiagnoseOptions& options,
           const ReportPrinter& print)
      : name_(name), rules_(rules), options_(options), print_(print) {}

  // Returns false (with *error) when the file cannot be opened.
  bool Open(std::string* error) {
    fd_ = open(name_.c_str(), O_RDONLY);
    if (fd_ < 0) {
      *error = "cannot read " + name_ + ": " + std::strerror(errno);
      return false;
    }
    fstat(fd_, &st_);
    offset_ = 0;
    printed_.clear();
    session_ = std::make_unique<Session>(rules_, options_, name_);
    return true;
  }

  ~Follower() {
    if (fd_ >= 0) close(fd_);
  }

  // Reads what the file holds now. Returns the bytes read, or -1 on a read error (*error set).
  long long Drain(std::string* error) {
    long long total = 0;
    for (;;) {
      ssize_t n = read(fd_, buf_.data(), buf_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = "error reading " + name_ + ": " + std::strerror(errno);
        return -1;
      }
      if (n == 0) return total;
      total += n;
      offset_ += n;
      session_->Feed(std::string_view(buf_.data(), static_cast<size_t>(n)));
    }
  }

  // Prints the diagnoses not printed yet: of completed incidents only, or of everything so far.
  void Report(bool include_open) {
    if (!include_open && session_->CompletedIncidents() == reported_completed_) return;
    reported_completed_ = session_->CompletedIncidents();
    triage::Report r = session_->Snapshot(include_open);
    triage::Report fresh = r;
    fresh.diagnoses.clear();
    for (const Diagnosis& d : r.diagnoses) {
      int line = d.incident >= 0 && d.incident < static_cast<int>(r.incidents.size()) ? r.incidents[d.incident].line_start : 0;
      if (printed_.insert(d.rule + "@" + std::to_string(line)).second) fresh.diagnoses.push_back(d);
    }
    if (fresh.diagnoses.empty()) return;
    print_(fresh);
    ++reports_;
  }

  // kRenamed when the name now points to another file, kTruncated when the file shrank: the caller
  // starts over on the name.
  enum class Rotation { kNone, kRenamed, kTruncated };
  Rotation Rotated() const {
    struct stat now;
    if (stat(name_.c_str(), &now) != 0) return Rotation::kNone;  // renamed away, not recreated yet: keep reading
    if (now.st_dev != st_.st_dev || now.st_ino != st_.st_ino) return Rotation::kRenamed;
    return now.st_size < offset_ ? Rotation::kTruncated : Rotation::kNone;
  }

  // Called when following ends: a log that never gave a diagnosis still gets its "nothing found" report.
  void ReportNothingIfSilent() {
    if (reports_ == 0) print_(session_->Snapshot(true));
  }

  int reports() const { return reports_; }

 private:
  std::string name_;
  std::shared_ptr<const RuleSet> rules_;
  DiagnoseOptions options_;
  const ReportPrinter& print_;
  int fd_ = -1;
  struct stat st_ {};
  off_t offset_ = 0;
  std::unique_ptr<Session> session_;
  std::set<std::string> printed_;
  int reported_completed_ = 0;
  int reports_ = 0;
  std::vector<char> buf_ = std::vector<char>(1 << 20);
};

}  // namespace

int Follow(const std::string& name, const std::shared_ptr<const RuleSet>& rules, const DiagnoseOptions& options,
           const FollowTiming& timing, const ReportPrinter& print) {
  auto f = std::make_unique<Follower>(name, rules, options, print);
  std::string error;
  if (!f->Open(&error)) {
    PrintError(error);
    return kExitUsage;
  }
  // Once the handlers are in place the file is open: what is written to it from then on, under any
  // name, is read (the follow tests wait for the handlers before they write or rename).
  CatchStopSignals();
  // The file renamed away at the last rotation, still read (Note: [Follow]); its quiet moments are
  // reported like the current file's.
  std::unique_ptr<Follower> renamed;
  Clock::time_point renamed_data;
  bool renamed_settled = true;
  int earlier_reports = 0;   // of followers let go
  bool backlog = true;       // still on the contents the file had when we started
  bool first_read = true;
  bool settled = false;      // everything was reported at the current quiet moment
  Clock::time_point last_data = Clock::now();
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  while (!g_stop) {
    long long n = f->Drain(&error);
    if (n < 0) {
      PrintError(error);
      return kExitUsage;
    }
    if (n > 0) {
      last_data = Clock::now();
      settled = false;
      if (!first_read) backlog = false;  // data after the backlog: the job is live
    }
    first_read = false;
    if (!backlog && n > 0) f->Report(/*include_open=*/false);
    if (renamed) {
      long long m = renamed->Drain(&error);
      if (m < 0) PrintError(error);
      if (m > 0) {
        renamed_data = Clock::now();
        renamed_settled = false;
        renamed->Report(/*include_open=*/false);
      }
      if (!renamed_settled && Clock::now() - renamed_data >= seconds(timing.settle)) {
        renamed->Report(/*include_open=*/true);
        renamed_settled = true;
      }
    }
    if (Follower::Rotation rotation = f->Rotated(); rotation != Follower::Rotation::kNone) {
      if (f->Drain(&error) < 0) PrintError(error);  // what the writer added before it moved the file
      f->Report(/*include_open=*/true);
      if (rotation == Follower::Rotation::kRenamed) {
        if (renamed) {
          if (renamed->Drain(&error) < 0) PrintError(error);
          renamed->Report(/*include_open=*/true);
          earlier_reports += renamed->reports();
        }
        renamed = std::move(f);
        renamed_data = Clock::now();
        renamed_settled = true;
      } else {
        earlier_reports += f->reports();  // truncated: the same file, read again from its start
      }
      f = std::make_unique<Follower>(name, rules, options, print);
      if (!f->Open(&error)) {
        PrintError(error);
        return kExitUsage;
      }
      backlog = false;
      continue;
    }
    Clock::duration quiet = Clock::now() - last_data;
    if (!settled && quiet >= seconds(timing.settle)) {
      f->Report(/*include_open=*/true);
      settled = true;
      backlog = false;
    }
    if (timing.idle_exit > 0 && quiet >= seconds(timing.idle_exit) &&
        (!renamed || Clock::now() - renamed_data >= seconds(timing.idle_exit))) {
      break;
    }
    usleep(static_cast<useconds_t>(timing.poll * 1e6));  // a stop signal ends the sleep early
  }
  if (renamed) {
    renamed->Drain(&error);
    renamed->Report(/*include_open=*/true);
    earlier_reports += renamed->reports();
  }
  f->Drain(&error);
  f->Report(/*include_open=*/true);
  if (earlier_reports == 0) f->ReportNothingIfSilent();
  return 0;  // the printer's verdict decides the exit status
}

}  // namespace triage::cli
