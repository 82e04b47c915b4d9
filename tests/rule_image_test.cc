// The bundled rules' build-time image (Note: [Bundled rule image] in engine/src/rules/rule_cache.h): a
// load it serves gives exactly what reading the files gives; an edited bundled file is read from its
// bytes, and a damaged image is read over: the files are read instead.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "load_observe.h"
#include "rules/rule_cache.h"
#include "rules/rule_loader.h"
#include "scoped_env.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

using triage_test::ScopedEnv;

// Notes `bytes` as the image for a scope (the test binary embeds none), then none again.
class ScopedImage {
 public:
  explicit ScopedImage(const std::string& bytes) { internal::NoteBundledRuleImage(bytes.data(), bytes.size()); }
  ~ScopedImage() { internal::NoteBundledRuleImage(nullptr, 0); }
};

LoadOptions BundledOnly() {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.cache = false;
  return o;
}

std::string Observe(const LoadResult& r) { return triage_test::ObserveLoad(r); }

const Rule* Find(const LoadResult& r, const std::string& id) {
  for (const Rule& rule : r.rules->rules) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

// A copy of rules/ (so the image, made from the source tree's, is read for another directory: its
// paths rewritten), the image of the source tree's rules, and a marked image: the same with one
// rule's title changed in the whole set's entry and another's in its part, so that a load shows which
// of them served it.
class BundledRuleImage : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("triage_image_" + std::to_string(::getpid()))).string();
    fs::remove_all(root_);
    fs::create_directories(root_);
    {
      ScopedEnv source("TRIAGE_BUNDLED_RULES", std::string(TRIAGE_SOURCE_DIR) + "/rules");
      image_ = MakeBundledRuleImage();
    }
    ASSERT_FALSE(image_.empty());
    copy_ = root_ + "/rules";
    fs::copy(std::string(TRIAGE_SOURCE_DIR) + "/rules", copy_, fs::copy_options::recursive);
    env_.emplace("TRIAGE_BUNDLED_RULES", copy_);
    BundledImage index;
    ASSERT_TRUE(IndexBundledImage(image_, &index));
    ASSERT_FALSE(index.entry.empty());
    ASSERT_GT(index.parts.size(), 100u);
    ParsedRules set;
    ASSERT_TRUE(ParseParsedRules(index.entry, &set));
    ASSERT_GT(set.rules.size(), 2u);
    entry_rule_ = set.rules[0].id;
    set.rules[0].title = "from the image's entry";
    const std::string entry = SerializeParsedRules(set);
    std::vector<std::string> bytes;
    for (const StoredPart& p : index.parts) {
      RulePart part;
      ASSERT_TRUE(ParseRulePart(p, &part));
      if (part.rule.id == set.rules[1].id) {
        part_rule_ = part.rule.id;
        part_file_ = part.rule.file;
        part.rule.title = "from the image's part";
      }
      bytes.push_back(SerializeRulePart(part));
    }
    ASSERT_FALSE(part_rule_.empty());
    std::vector<StoredPart> parts;
    for (size_t i = 0; i < bytes.size(); ++i) parts.push_back({index.parts[i].key, bytes[i]});
    marked_ = SerializeBundledImage(index.key, index.root, entry, parts);
    edited_file_ = copy_ + set.rules[2].file.substr(index.root.size());
    edited_rule_ = set.rules[2].id;
  }
  void TearDown() override {
    env_.reset();
    fs::remove_all(root_);
  }

  std::string root_, copy_, image_, marked_;
  std::string entry_rule_, part_rule_, part_file_, edited_rule_, edited_file_;
  std::optional<ScopedEnv> env_;
};

TEST_F(BundledRuleImage, ServesTheBundledRulesAsReadingThemDoes) {
  const LoadResult read = LoadRules(BundledOnly());
  ASSERT_TRUE(read.ok());
  const std::string fresh = Observe(read);
  ASSERT_EQ(Find(read, entry_rule_)->file.rfind(copy_, 0), 0u);
  {
    ScopedImage image(image_);
    const LoadResult served = LoadRules(BundledOnly());
    EXPECT_TRUE(fresh == Observe(served)) << "a load the image served differs from reading the files";
    EXPECT_EQ(Find(served, entry_rule_)->file, Find(read, entry_rule_)->file);
    // With the texts left in the image: every rule through Full as the files give it.
    LoadOptions deferred = BundledOnly();
    deferred.texts_on_demand = true;
    const LoadResult lazy = LoadRules(deferred);
    ASSERT_EQ(lazy.rules->rules.size(), read.rules->rules.size());
    for (size_t i = 0; i < read.rules->rules.size(); ++i) {
      ParsedRules a, b;
      a.rules = {read.rules->rules[i]};
      b.rules = {lazy.rules->Full(static_cast<int>(i))};
      ASSERT_TRUE(SerializeParsedRules(a) == SerializeParsedRules(b)) << read.rules->rules[i].id;
    }
  }
  ScopedImage image(marked_);
  EXPECT_EQ(Find(LoadRules(BundledOnly()), entry_rule_)->title, "from the image's entry");
  // With a cache directory, a miss is served by the image, which is written as the directory's entry
  // with this load's paths; the next load is a hit on it.
  LoadOptions cached = BundledOnly();
  cached.cache = true;
  cached.cache_dir = root_ + "/cache";
  EXPECT_EQ(Find(LoadRules(cached), entry_rule_)->title, "from the image's entry");
  ScopedImage none("");
  const LoadResult hit = LoadRules(cached);
  EXPECT_EQ(Find(hit, entry_rule_)->title, "from the image's entry");
  EXPECT_EQ(Find(hit, entry_rule_)->file, Find(read, entry_rule_)->file);
}

TEST_F(BundledRuleImage, AnEditedBundledFileIsReadFromItsBytes) {
  std::string text;
  {
    std::ifstream in(edited_file_, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t title = text.find("\ntitle: ");
  ASSERT_NE(title, std::string::npos);
  text.insert(title + 8, "Edited ");
  std::ofstream(edited_file_, std::ios::binary | std::ios::trunc) << text;
  const LoadResult read = LoadRules(BundledOnly());
  {
    ScopedImage image(image_);
    EXPECT_TRUE(Observe(read) == Observe(LoadRules(BundledOnly())));
  }
  ScopedImage image(marked_);
  const LoadResult served = LoadRules(BundledOnly());
  // Not the whole set (its files differ), but the other files' parts: the edited file read.
  ASSERT_NE(Find(served, edited_rule_), nullptr);
  EXPECT_EQ(Find(served, edited_rule_)->title.rfind("Edited ", 0), 0u);
  EXPECT_EQ(Find(served, part_rule_)->title, "from the image's part");
  EXPECT_EQ(Find(served, entry_rule_)->title, Find(read, entry_rule_)->title);
  // A rule file of the user's own beside them: the bundled files' parts still come from the image.
  const std::string own = root_ + "/own";
  fs::create_directories(own);
  std::ofstream(own + "/own-rule.yaml") << "id: own-rule\ncategory: cuda.oom\ntitle: own\nmatch:\n  message: 'own failed'\n"
                                           "explain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n    fix: f\n"
                                           "verify: v\nexamples:\n  - match: 'own failed'\n";
  LoadOptions with_own = BundledOnly();
  with_own.dirs = {own};
  const LoadResult both = LoadRules(with_own);
  EXPECT_EQ(Find(both, part_rule_)->title, "from the image's part");
  ASSERT_NE(Find(both, "own-rule"), nullptr);
  // A malformed edit is reported where it is, as reading the files reports it.
  text.insert(title + 1, "match: [\n");
  std::ofstream(edited_file_, std::ios::binary | std::ios::trunc) << text;
  ScopedImage none("");
  const LoadResult broken_read = LoadRules(BundledOnly());
  ASSERT_FALSE(broken_read.ok());
  ScopedImage again(image_);
  const LoadResult broken_served = LoadRules(BundledOnly());
  ASSERT_EQ(broken_served.problems.size(), broken_read.problems.size());
  for (size_t i = 0; i < broken_read.problems.size(); ++i) {
    EXPECT_EQ(broken_served.problems[i].ToString(), broken_read.problems[i].ToString());
  }
  EXPECT_EQ(broken_read.problems[0].file, edited_file_);
  EXPECT_GT(broken_read.problems[0].line, 0);
  EXPECT_TRUE(Observe(broken_read) == Observe(broken_served));
}

TEST_F(BundledRuleImage, ADamagedImageIsReadOverAndTheFilesRead) {
  const LoadResult read = LoadRules(BundledOnly());
  const std::string fresh = Observe(read);
  BundledImage index;
  ASSERT_TRUE(IndexBundledImage(marked_, &index));
  const size_t entry_at = static_cast<size_t>(index.entry.data() - marked_.data());
  const size_t in_entry = marked_.find("from the image's entry");
  const size_t in_part = marked_.find("from the image's part");
  ASSERT_NE(in_entry, std::string::npos);
  ASSERT_NE(in_part, std::string::npos);
  // The entry's title flipped: its checksum fails, the parts serve (the marked part shows).
  std::string damaged = marked_;
  damaged[in_entry] ^= 0x20;
  {
    ScopedImage image(damaged);
    const LoadResult r = LoadRules(BundledOnly());
    EXPECT_NE(Find(r, entry_rule_)->title, "from the image's entry");
    EXPECT_EQ(Find(r, part_rule_)->title, "from the image's part");
  }
  // The part's title flipped too: that file is read from its bytes; with the unmarked image every
  // damaged piece gives what the files give.
  damaged[in_part] ^= 0x20;
  {
    ScopedImage image(damaged);
    const LoadResult r = LoadRules(BundledOnly());
    EXPECT_EQ(Find(r, part_rule_)->title, Find(read, part_rule_)->title);
  }
  std::vector<std::string> bad;
  for (size_t at : {entry_at + 40, entry_at + index.entry.size() / 2, image_.size() / 2, image_.size() - 9}) {
    std::string b = image_;
    b[at] ^= 0x01;
    bad.push_back(b);
  }
  bad.push_back(image_.substr(0, image_.size() / 2));    // cut short
  bad.push_back(image_.substr(0, 30));                    // its header alone
  bad.push_back(std::string(image_.size(), 'x'));         // not an image
  std::string wrong_root = image_;                        // its root's first byte changed
  const size_t root_at = wrong_root.find(index.root);
  ASSERT_NE(root_at, std::string::npos);
  wrong_root[root_at] = '#';
  bad.push_back(wrong_root);
  for (size_t i = 0; i < bad.size(); ++i) {
    ScopedImage image(bad[i]);
    EXPECT_TRUE(fresh == Observe(LoadRules(BundledOnly()))) << "damaged image " << i;
  }
}

}  // namespace
}  // namespace triage
