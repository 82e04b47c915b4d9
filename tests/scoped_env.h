// An environment variable set for a scope and restored after (the tests that point the loader at
// other rule or cache directories).
#ifndef TRIAGE_TESTS_SCOPED_ENV_H_
#define TRIAGE_TESTS_SCOPED_ENV_H_

#include <cstdlib>
#include <optional>
#include <string>

namespace triage_test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace triage_test

#endif  // TRIAGE_TESTS_SCOPED_ENV_H_
