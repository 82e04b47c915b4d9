// RuleStore: hot reload for embedders.
//
// Note: [Rule reload] A RuleSet is immutable, so reloading never touches the set in use: it builds a
// new one and swaps the shared_ptr under a mutex. A diagnosis copies the pointer when it starts
// (Engine and Session hold it), so it finishes on the set it began with, and the old set is freed
// when its last holder lets go. Lua states belong to their set's LuaRuntime and go with it. A file
// that loaded before but is broken now is not allowed to take its rule away: the loader puts the
// previous version of that rule back (LoadRulesKeeping) and says so.
#include "rules/lua_runtime.h"
#include "rules/rule.h"
#include "rules/rule_loader.h"
#include "triage/triage.h"

namespace triage {

RuleStore::RuleStore(LoadOptions options) : options_(std::move(options)) {
  LoadResult first = LoadRulesKeeping(options_, nullptr);
  current_ = first.rules;
  generation_ = 1;
}

LoadResult RuleStore::Reload() {
  std::lock_guard<std::mutex> one_at_a_time(reload_mu_);
  std::shared_ptr<const RuleSet> previous = Current();
  LoadResult result = LoadRulesKeeping(options_, previous.get());
  {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = result.rules;
    ++generation_;
  }
  return result;
}

std::shared_ptr<const RuleSet> RuleStore::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

int RuleStore::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

}  // namespace triage
