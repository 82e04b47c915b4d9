// The C API (bindings/c/triage_c.h): same answers as the C++ API, errors as values, NULLs and bad
// options refused with a message, ownership rules held.
#include "triage_c.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "triage/triage.h"
#include "source_paths.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Takes ownership of a string the C API returned.
std::string Take(char* s) {
  std::unique_ptr<char, decltype(&triage_string_free)> owned(s, triage_string_free);
  return s != nullptr ? std::string(s) : std::string();
}

const std::string kLog = ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/shape/linear-flattened-conv/log.txt");
constexpr unsigned kBundledOnly = TRIAGE_LOAD_ONLY_DIRS | TRIAGE_LOAD_NO_CACHE;

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    char* problems = nullptr;
    ASSERT_EQ(triage_rules_load(nullptr, 0, kBundledOnly, &rules_, &problems), TRIAGE_OK) << Take(problems);
    ASSERT_NE(rules_, nullptr);
  }
  void TearDown() override { triage_rules_free(rules_); }
  triage_rules* rules_ = nullptr;
};

TEST(CApiVersion, MatchesTheLibrary) {
  EXPECT_STREQ(triage_version(), triage::Version());
  EXPECT_EQ(triage_json_contract_version(), TRIAGE_JSON_CONTRACT_VERSION);
  EXPECT_STREQ(triage_status_name(TRIAGE_RULE_ERRORS), "rule-errors");
  EXPECT_STREQ(triage_status_name(static_cast<triage_status>(99)), "unknown");
}

TEST_F(CApi, DiagnoseGivesTheSameJsonAsTheCxxApi) {
  triage::LoadOptions load;
  load.system = load.user = load.project = load.env_path = load.cache = false;
  triage::LoadResult loaded = triage::LoadRules(load);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(triage_rules_count(rules_), triage::ListRules(*loaded.rules).size());
  triage::Report expected = triage::Engine(loaded.rules).DiagnoseText(kLog);
  expected.source = "train.log";
  ASSERT_FALSE(expected.diagnoses.empty());

  triage_options options;
  triage_options_init(&options);
  options.source = "train.log";
  char* json = nullptr;
  char* error = nullptr;
  ASSERT_EQ(triage_diagnose(rules_, &options, kLog.data(), kLog.size(), &json, &error), TRIAGE_OK);
  EXPECT_EQ(error, nullptr);
  EXPECT_EQ(Take(json), triage::ToJson(expected));

  options.format = TRIAGE_FORMAT_TEXT;
  ASSERT_EQ(triage_diagnose(rules_, &options, kLog.data(), kLog.size(), &json, nullptr), TRIAGE_OK);
  EXPECT_EQ(Take(json), triage::ToText(expected, {}));
}

// A C or C++ caller asks for C++ advice: the same diagnosis, with the rule's C++ fix and checks.
TEST_F(CApi, CppAudienceGetsTheRulesCxxAdvice) {
  const std::string log = "Loss is nan at step 9\n";
  triage_options options;
  triage_options_init(&options);
  EXPECT_EQ(options.audience, TRIAGE_AUDIENCE_PYTHON);
  options.format = TRIAGE_FORMAT_TEXT;
  char* out = nullptr;
  ASSERT_EQ(triage_diagnose(rules_, &options, log.data(), log.size(), &out, nullptr), TRIAGE_OK);
  const std::string python = Take(out);
  options.audience = TRIAGE_AUDIENCE_CPP;
  ASSERT_EQ(triage_diagnose(rules_, &options, log.data(), log.size(), &out, nullptr), TRIAGE_OK);
  const std::string cpp = Take(out);
  EXPECT_NE(python.find("torch.nn.utils.clip_grad_norm_"), std::string::npos) << python;
  EXPECT_NE(python.find("python -c"), std::string::npos) << python;
  EXPECT_NE(cpp.find("torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0)"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("torch::autograd::DetectAnomalyGuard"), std::string::npos) << cpp;
  EXPECT_EQ(cpp.find("torch.nn.utils"), std::string::npos) << cpp;
  EXPECT_EQ(cpp.find("python -c"), std::string::npos) << cpp;
  EXPECT_EQ(cpp.find("triage.check("), std::string::npos) << cpp;
  EXPECT_EQ(cpp.substr(0, cpp.find('\n')), python.substr(0, python.find('\n')));  // the same diagnosis

  options.audience = static_cast<triage_audience>(5);
  char* error = nullptr;
  EXPECT_EQ(triage_diagnose(rules_, &options, log.data(), log.size(), &out, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(error), "options.audience must be TRIAGE_AUDIENCE_PYTHON, TRIAGE_AUDIENCE_CPP or TRIAGE_AUDIENCE_AUTO");

  // Note: [Audience detection]: AUTO reads this Python log as a Python program's.
  options.audience = TRIAGE_AUDIENCE_AUTO;
  ASSERT_EQ(triage_diagnose(rules_, &options, log.data(), log.size(), &out, nullptr), TRIAGE_OK);
  EXPECT_EQ(Take(out), python);
}

TEST_F(CApi, SessionFedInPiecesAgreesWithOneCall) {
  char* whole = nullptr;
  ASSERT_EQ(triage_diagnose(rules_, nullptr, kLog.data(), kLog.size(), &whole, nullptr), TRIAGE_OK);
  triage_session* session = nullptr;
  ASSERT_EQ(triage_session_new(rules_, nullptr, &session, nullptr), TRIAGE_OK);
  triage_rules_free(rules_);  // the session keeps its own reference
  rules_ = nullptr;
  for (size_t at = 0; at < kLog.size(); at += 7) {
    ASSERT_EQ(triage_session_feed(session, kLog.data() + at, std::min<size_t>(7, kLog.size() - at), nullptr), TRIAGE_OK);
  }
  char* snapshot = nullptr;
  ASSERT_EQ(triage_session_snapshot(session, &snapshot, nullptr), TRIAGE_OK);
  char* finished = nullptr;
  ASSERT_EQ(triage_session_finish(session, &finished, nullptr), TRIAGE_OK);
  const std::string expected = Take(whole);
  EXPECT_EQ(Take(snapshot), expected);
  EXPECT_EQ(Take(finished), expected);

  // A finished session refuses more work with a message, and is still freed normally.
  char* error = nullptr;
  EXPECT_EQ(triage_session_feed(session, "x\n", 2, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(error), "the session is finished");
  char* out = reinterpret_cast<char*>(1);
  EXPECT_EQ(triage_session_finish(session, &out, nullptr), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  triage_session_free(session);
}

TEST_F(CApi, NoFailureIsAnEmptyDiagnosisNotAnError) {
  char* json = nullptr;
  ASSERT_EQ(triage_diagnose(rules_, nullptr, nullptr, 0, &json, nullptr), TRIAGE_OK);
  EXPECT_NE(Take(json).find("\"diagnoses\":[]"), std::string::npos);
  const char bytes[] = "epoch 1 \xff\xfe ok\n";
  ASSERT_EQ(triage_diagnose(rules_, nullptr, bytes, sizeof bytes - 1, &json, nullptr), TRIAGE_OK);
  EXPECT_NE(Take(json).find("\"lines\":1"), std::string::npos);
}

TEST_F(CApi, NullsAndBadOptionsAreRefusedWithAMessage) {
  char* json = reinterpret_cast<char*>(1);
  char* error = nullptr;
  EXPECT_EQ(triage_diagnose(nullptr, nullptr, "x", 1, &json, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(json, nullptr);
  EXPECT_EQ(Take(error), "rules is NULL");
  EXPECT_EQ(triage_diagnose(rules_, nullptr, nullptr, 5, &json, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(error), "text is NULL but len > 0");
  EXPECT_EQ(triage_diagnose(rules_, nullptr, "x", 1, nullptr, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(error), "out is NULL");
  EXPECT_EQ(triage_diagnose(rules_, nullptr, "x", 1, &json, nullptr), TRIAGE_OK);  // error may be NULL
  Take(json);

  triage_options options;
  triage_options_init(&options);
  options.min_confidence = 1.5;
  EXPECT_EQ(triage_diagnose(rules_, &options, "x", 1, &json, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(error), "options.min_confidence must be in [0, 1]");
  triage_options_init(&options);
  options.top = -1;
  triage_session* session = reinterpret_cast<triage_session*>(1);
  EXPECT_EQ(triage_session_new(rules_, &options, &session, &error), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(session, nullptr);
  EXPECT_EQ(Take(error), "options.top must be >= 0");
  triage_options_init(&options);
  options.format = static_cast<triage_format>(7);
  EXPECT_EQ(triage_session_new(rules_, &options, &session, &error), TRIAGE_INVALID_ARGUMENT);
  Take(error);

  EXPECT_EQ(triage_session_new(nullptr, nullptr, &session, &error), TRIAGE_INVALID_ARGUMENT);
  Take(error);
  EXPECT_EQ(triage_session_feed(nullptr, "x", 1, &error), TRIAGE_INVALID_ARGUMENT);
  Take(error);
  EXPECT_EQ(triage_session_snapshot(nullptr, &json, &error), TRIAGE_INVALID_ARGUMENT);
  Take(error);
  EXPECT_EQ(triage_rules_count(nullptr), 0u);
  triage_rules_free(nullptr);
  triage_session_free(nullptr);
  triage_string_free(nullptr);
  triage_options_init(nullptr);
}

TEST(CApiLoad, BadRulesAreLeftOutAndReported) {
  const char* names[] = {"good.yaml", "bad.yaml"};
  const char* yamls[] = {
      "id: good\ncategory: shape.matmul_mismatch\ntitle: t\nmatch:\n  message: ['mat1 and mat2']\n"
      "explain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n    fix: f\nverify: v\n"
      "examples:\n  - match: 'mat1 and mat2 shapes cannot be multiplied'\n",
      "id: [unclosed\n"};
  triage_rules* rules = nullptr;
  char* problems = nullptr;
  const triage_status st = triage_rules_from_strings(names, yamls, 2, 0, &rules, &problems);
  const std::string text = Take(problems);
  EXPECT_EQ(st, TRIAGE_RULE_ERRORS) << text;
  ASSERT_NE(rules, nullptr);
  EXPECT_NE(text.find("bad.yaml:"), std::string::npos) << text;
  EXPECT_EQ(text.find("good.yaml"), std::string::npos) << text;
  EXPECT_EQ(triage_rules_count(rules), 1u);
  triage_rules_free(rules);
}

TEST(CApiLoad, NullArgumentsAndMissingDirectories) {
  triage_rules* rules = nullptr;
  char* problems = nullptr;
  EXPECT_EQ(triage_rules_load(nullptr, 0, 0, nullptr, &problems), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(problems), "rules (the output) is NULL");
  EXPECT_EQ(triage_rules_load(nullptr, 2, 0, &rules, &problems), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(rules, nullptr);
  EXPECT_EQ(Take(problems), "dirs is NULL but n_dirs > 0");
  const char* dirs[] = {nullptr};
  EXPECT_EQ(triage_rules_load(dirs, 1, 0, &rules, &problems), TRIAGE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(problems), "dirs[0] is NULL");
  const char* names[] = {"a.yaml"};
  EXPECT_EQ(triage_rules_from_strings(names, nullptr, 1, 0, &rules, &problems), TRIAGE_INVALID_ARGUMENT);
  Take(problems);

  // A directory named by the caller that does not exist is a loading error, not a crash.
  const char* missing[] = {"/nonexistent/triage-rules"};
  const triage_status st = triage_rules_load(missing, 1, kBundledOnly | TRIAGE_LOAD_NO_BUNDLED, &rules, &problems);
  const std::string text = Take(problems);
  EXPECT_EQ(st, TRIAGE_RULE_ERRORS);
  EXPECT_NE(text.find("/nonexistent/triage-rules"), std::string::npos) << text;
  ASSERT_NE(rules, nullptr);
  EXPECT_EQ(triage_rules_count(rules), 0u);
  triage_rules_free(rules);
}

}  // namespace
