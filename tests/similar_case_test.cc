// The similar-known-case answer (Note: [Similar known case] in engine/src/diagnose/similar_case.cc;
// rules/README.md Ranking step 10): the words an error is compared by, the nearest case, leaving a case
// and its thread out, and the shipped index being what the corpus gives today.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "diagnose/similar_case.h"
#include "rules/rule_cache.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

bool Has(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

std::string Joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

TEST(SimilarWords, KeepsTheLibrarysWordsAndDropsTheUsers) {
  struct Case {
    const char* exception;
    const char* message;
    std::vector<std::string> have;
    std::vector<std::string> lack;
  };
  const Case cases[] = {
      // numbers, sizes and units' figures go; the class is a word of its own
      {"RuntimeError", "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)",
       {"class:runtimeerror", "cuda", "memory", "allocate", "mib", "gpu", "capacity"}, {"20", "00", "79", "0"}},
      // the class's module goes, its name stays
      {"torch.cuda.OutOfMemoryError", "CUDA out of memory.", {"class:outofmemoryerror", "cuda"}, {"torch", "class:torch"}},
      // quoted words stay (ops, dtypes and modules are quoted too); a dotted name is split
      {"ModuleNotFoundError", "No module named 'torch._six'", {"no", "module", "named", "torch", "six"}, {"torch._six", "'torch"}},
      {"RuntimeError", "\"addmm_impl_cpu_\" not implemented for 'Half'", {"addmm_impl_cpu", "implemented", "half"}, {}},
      // a path keeps its file name only
      {"FileNotFoundError", "[Errno 2] No such file or directory: /home/alice/data/train.csv",
       {"errno", "such", "directory", "train", "csv"}, {"home", "alice", "data"}},
      {"OSError", "cannot open C:\\Users\\bob\\model.pt", {"cannot", "open", "model", "pt"}, {"users", "bob"}},
      // hex, tensor sizes and one-letter words go
      {"RuntimeError", "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128) at 0x7f3a2b1c deadbeef12 a b",
       {"mat1", "mat2", "shapes", "multiplied"}, {"4x57600", "64x128", "0x7f3a2b1c", "deadbeef12", "a", "b"}},
  };
  for (const Case& c : cases) {
    const std::vector<std::string> words = SimilarWords(c.exception, c.message);
    for (const std::string& w : c.have) EXPECT_TRUE(Has(words, w)) << w << " not in [" << Joined(words) << "]";
    for (const std::string& w : c.lack) EXPECT_FALSE(Has(words, w)) << w << " in [" << Joined(words) << "]";
  }
  // each word once, in order of first appearance
  EXPECT_EQ(Joined(SimilarWords("", "Bad bad BAD input, bad")), "bad input");
}

// A small index: two OOM cases from two threads, a shape case, a negative, and a case that shares only
// the class and one word with everything.
constexpr char kIndex[] =
    "# a comment line\n"
    "wild/cuda/oom-a\tcuda.oom\thttps://example.org/t/1\tclass:runtimeerror cuda out of memory tried to allocate mib\n"
    "wild/cuda/oom-b\tcuda.oom\thttps://example.org/t/2\tclass:runtimeerror cuda out of memory tried to allocate gib free\n"
    "shape/mm\tshape.matmul_mismatch\t-\tclass:runtimeerror mat1 and mat2 shapes cannot be multiplied\n"
    "negative/warn\tnone\t-\tclass:userwarning memory is deprecated soon\n";

TEST(SimilarIndex, TheNearestCaseAndLeavingItsThreadOut) {
  SimilarIndex index;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kIndex, &index, &error)) << error;
  ASSERT_EQ(index.rows.size(), 4u);
  EXPECT_EQ(index.rows[2].source, "");  // "-" is no source

  const std::vector<std::string> oom = SimilarWords("RuntimeError", "CUDA out of memory. Tried to allocate 2.00 MiB");
  SimilarReading r = ReadSimilarCase(index, oom, {});
  ASSERT_NE(r.row, nullptr);
  EXPECT_EQ(r.row->case_path, "wild/cuda/oom-a");
  EXPECT_NEAR(r.score, 1.0, 1e-9);  // the same words
  EXPECT_EQ(r.shared.size(), 6u);   // at most six, the rarest first
  EXPECT_EQ(r.shared[0], "mib");

  // leaving out by thread, then by case folder (a path ending in the case's corpus path)
  r = ReadSimilarCase(index, oom, {"https://example.org/t/1"});
  ASSERT_NE(r.row, nullptr);
  EXPECT_EQ(r.row->case_path, "wild/cuda/oom-b");
  EXPECT_LT(r.score, 1.0);
  r = ReadSimilarCase(index, oom, {"/src/corpus/wild/cuda/oom-a"});
  ASSERT_NE(r.row, nullptr);
  EXPECT_EQ(r.row->case_path, "wild/cuda/oom-b");
  // a path that only ends in the same letters is not the case
  r = ReadSimilarCase(index, oom, {"/src/corpus/wild/cuda/big-oom-a"});
  EXPECT_EQ(r.row->case_path, "wild/cuda/oom-a");
  r = ReadSimilarCase(index, oom, {"wild/cuda/oom-a", "https://example.org/t/2"});
  EXPECT_EQ(r.row, nullptr) << r.row->case_path;  // the shape case shares only the class

  // two shared message words are needed besides the class
  EXPECT_EQ(ReadSimilarCase(index, SimilarWords("RuntimeError", "memory"), {}).row, nullptr);
  EXPECT_NE(ReadSimilarCase(index, SimilarWords("RuntimeError", "memory allocate"), {}).row, nullptr);
  // words the index never saw lower the score
  const double plain = ReadSimilarCase(index, SimilarWords("RuntimeError", "mat1 and mat2 shapes cannot be multiplied"), {}).score;
  const double diluted =
      ReadSimilarCase(index, SimilarWords("RuntimeError", "mat1 and mat2 shapes cannot be multiplied zzzqq yyyqq"), {}).score;
  EXPECT_NEAR(plain, 1.0, 1e-9);
  EXPECT_LT(diluted, 0.8);
}

TEST(SimilarIndex, AMalformedLineIsAnError) {
  SimilarIndex index;
  std::string error;
  EXPECT_FALSE(ParseSimilarIndex("wild/a\tcuda.oom\twords only three fields\n", &index, &error));
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;
}

TEST(SimilarBands, BandsAreOrderedAndCoverTheirRange) {
  const std::vector<SimilarBand>& bands = SimilarBands();
  ASSERT_FALSE(bands.empty());
  for (size_t b = 1; b < bands.size(); ++b) EXPECT_DOUBLE_EQ(bands[b].low, bands[b - 1].high);
  EXPECT_GT(bands.back().high, 1.0);
  EXPECT_EQ(SimilarBandOf(bands[0].low - 0.01), -1);
  EXPECT_EQ(SimilarBandOf(1.0), static_cast<int>(bands.size()) - 1);
}

// The tiers of the vote (Note: [Similar known case], "The vote"): which readings answer and which stay
// silent, by the nearest case's similarity and how the threads within the window agree.
TEST(SimilarTiers, WhichVotesAnswer) {
  struct Case {
    double score;
    int agreeing, threads;
    const char* tier;  // "" when no tier applies
    bool answers;
  };
  const Case cases[] = {
      {0.95, 1, 1, "near-agree", true},      // one thread, nothing against it
      {0.95, 3, 3, "near-agree", true},
      {0.95, 2, 3, "near-majority", true},   // two of three threads
      {0.95, 1, 2, "near-split", false},     // one against one: silent
      {0.95, 2, 4, "near-split", false},     // half is no majority
      {0.85, 1, 1, "close-agree", true},
      {0.85, 2, 3, "close-split", false},    // below 0.9 any dissent silences it
      {0.60, 3, 3, "far-agree", true},       // far, but three threads agree
      {0.45, 4, 4, "far-agree", true},
      {0.60, 2, 2, "far-pair", false},       // two are not enough that far
      {0.60, 3, 4, "far", false},
      {0.35, 5, 5, "far", false},            // under 0.4 nothing answers
      {0.15, 1, 1, "", false},               // under every tier
  };
  for (const Case& c : cases) {
    const int t = SimilarTierOf(c.score, c.agreeing, c.threads);
    const std::string got = t < 0 ? "" : SimilarTiers()[static_cast<size_t>(t)].id;
    EXPECT_EQ(got, c.tier) << c.score << " " << c.agreeing << "/" << c.threads;
    EXPECT_EQ(t >= 0 && SimilarTiers()[static_cast<size_t>(t)].speaks, c.answers) << c.score << " " << c.agreeing << "/" << c.threads;
  }
}

// Three threads read alike: two of them (three cases, t/1 twice) label it X, one Y (which also accepts
// X); a fourth case shares too little to vote.
constexpr char kVoteIndex[] =
    "wild/x/a1\tdtype.x\thttps://example.org/t/1\tclass:runtimeerror alpha beta gamma delta\n"
    "wild/x/a1b\tdtype.x\thttps://example.org/t/1\tclass:runtimeerror alpha beta gamma delta\n"
    "wild/x/a2\tdtype.x\thttps://example.org/t/2\tclass:runtimeerror alpha beta gamma delta\n"
    "wild/y/b1\tshape.y,dtype.x\thttps://example.org/t/3\tclass:runtimeerror alpha beta gamma delta\n"
    "wild/z/c1\tindex.z\thttps://example.org/t/4\tclass:valueerror omega psi chi\n";

TEST(SimilarVote, ThreadsCountOnceAndTheWindowDecides) {
  SimilarIndex index;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &index, &error)) << error;
  EXPECT_EQ(index.rows[3].category, "shape.y");
  ASSERT_EQ(index.rows[3].also.size(), 1u);
  EXPECT_EQ(index.rows[3].also[0], "dtype.x");
  const std::vector<std::string> q = SimilarWords("RuntimeError", "alpha beta gamma delta");

  SimilarVote v = VoteSimilarCases(index, q, {});
  ASSERT_NE(v.nearest.row, nullptr);
  EXPECT_EQ(v.nearest.row->case_path, "wild/x/a1");
  ASSERT_EQ(v.threads.size(), 3u);  // t/1 once, though two of its cases are as near
  EXPECT_EQ(v.agreeing, 2);
  EXPECT_STREQ(SimilarTiers()[static_cast<size_t>(v.tier)].id, "near-majority");

  // without t/2 it is one against one: no answer
  v = VoteSimilarCases(index, q, {"https://example.org/t/2"});
  EXPECT_EQ(v.threads.size(), 2u);
  EXPECT_STREQ(SimilarTiers()[static_cast<size_t>(v.tier)].id, "near-split");
  EXPECT_FALSE(SimilarTiers()[static_cast<size_t>(v.tier)].speaks);

  // without t/3 every thread agrees
  v = VoteSimilarCases(index, q, {"https://example.org/t/3"});
  EXPECT_EQ(v.agreeing, 2);
  EXPECT_STREQ(SimilarTiers()[static_cast<size_t>(v.tier)].id, "near-agree");

  // a far reading (one shared word of four besides two unknown ones) under the lowest tier's reach
  v = VoteSimilarCases(index, SimilarWords("ValueError", "omega psi unknownword otherunknown more words here"), {});
  ASSERT_NE(v.nearest.row, nullptr);
  EXPECT_EQ(v.nearest.row->case_path, "wild/z/c1");
  EXPECT_LT(v.nearest.score, 0.8);
  EXPECT_EQ(v.threads.size(), 1u);
  EXPECT_TRUE(v.tier < 0 || !SimilarTiers()[static_cast<size_t>(v.tier)].speaks) << v.nearest.score;

  // nothing shared: no vote
  v = VoteSimilarCases(index, SimilarWords("KeyError", "nothing in common"), {});
  EXPECT_EQ(v.nearest.row, nullptr);
  EXPECT_EQ(v.tier, -1);
}

// The fit votes on every row with its own case and thread left out, and counts an answer right when the
// row's label (or its also:) accepts it. Worked by hand on kVoteIndex:
//   a1, a1b (t/1 out): nearest a2 (X); threads t/2 X, t/3 Y: one of two -> near-split, right
//   a2 (t/2 out): nearest a1 (X); threads t/1 X, t/3 Y -> near-split, right
//   b1 (t/3 out): nearest a1 (X); threads t/1 X, t/2 X -> near-agree, right by its also: X
//   c1: nothing shares two message words -> no vote
TEST(SimilarVote, TheFitIsTheTiersLeaveOneThreadOutRecord) {
  SimilarIndex index;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &index, &error)) << error;
  ASSERT_EQ(index.tier_fits.size(), SimilarTiers().size());
  auto fit = [&](const char* id) {
    for (size_t t = 0; t < SimilarTiers().size(); ++t) {
      if (std::string(SimilarTiers()[t].id) == id) return index.tier_fits[t];
    }
    return SimilarTierFit();
  };
  EXPECT_EQ(fit("near-split").n, 3);
  EXPECT_EQ(fit("near-split").right, 3);
  EXPECT_EQ(fit("near-agree").n, 1);
  EXPECT_EQ(fit("near-agree").right, 1);
  EXPECT_DOUBLE_EQ(fit("near-agree").confidence, 1.0);
  EXPECT_EQ(fit("near-majority").n, 0);
  EXPECT_DOUBLE_EQ(fit("near-majority").confidence, 0.0);

  // without b1's also: its answer is wrong
  std::string strict = kVoteIndex;
  strict.replace(strict.find("shape.y,dtype.x"), 15, "shape.y");
  ASSERT_TRUE(ParseSimilarIndex(strict, &index, &error)) << error;
  EXPECT_EQ(fit("near-agree").n, 1);
  EXPECT_EQ(fit("near-agree").right, 0);
  EXPECT_DOUBLE_EQ(fit("near-agree").confidence, 0.0);
  EXPECT_FALSE(ParseSimilarIndex("wild/a\t,\t-\tclass:x y z\n", &index, &error));  // no category
}

// Note: [Stored tier fits]: fits stored for SimilarTiers()'s ids, in its order, are what the index
// reports; any other set of stored fits is ignored and the rows fitted; a malformed fit line is an error.
TEST(SimilarVote, StoredFitsAreReadWhenTheyNameTheTiers) {
  SimilarIndex fresh;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &fresh, &error)) << error;
  EXPECT_FALSE(fresh.fits_stored);
  std::string lines;
  for (size_t t = 0; t < SimilarTiers().size(); ++t) {  // made-up records, unlike kVoteIndex's fit
    lines += std::string("!fit\t") + SimilarTiers()[t].id + "\t" + std::to_string(10 + t) + "\t" + std::to_string(t) + "\n";
  }
  SimilarIndex index;
  ASSERT_TRUE(ParseSimilarIndex(std::string(kVoteIndex) + lines, &index, &error)) << error;
  EXPECT_TRUE(index.fits_stored);
  ASSERT_EQ(index.tier_fits.size(), SimilarTiers().size());
  for (size_t t = 0; t < SimilarTiers().size(); ++t) {
    EXPECT_EQ(index.tier_fits[t].n, static_cast<int>(10 + t));
    EXPECT_EQ(index.tier_fits[t].right, static_cast<int>(t));
    EXPECT_DOUBLE_EQ(index.tier_fits[t].confidence, static_cast<double>(t) / static_cast<double>(10 + t));
  }
  EXPECT_EQ(SimilarTierFitLines(index), lines);
  EXPECT_EQ(index.rows.size(), fresh.rows.size());

  // one tier left out, or renamed: the stored fits are stale and the rows are fitted
  const std::string first = lines.substr(0, lines.find('\n') + 1);
  for (const std::string& stale : {lines.substr(first.size()), "!fit\trenamed" + first.substr(first.find('\t', 5)) + lines.substr(first.size())}) {
    ASSERT_TRUE(ParseSimilarIndex(std::string(kVoteIndex) + stale, &index, &error)) << error;
    EXPECT_FALSE(index.fits_stored) << stale;
    EXPECT_EQ(SimilarTierFitLines(index), SimilarTierFitLines(fresh)) << stale;
  }
  for (const char* bad : {"!fit\tfar\t3\n", "!fit\tfar\t3\t4\n", "!fit\tfar\tx\t1\n", "!fit\t\t3\t1\n"}) {
    EXPECT_FALSE(ParseSimilarIndex(std::string(kVoteIndex) + bad, &index, &error)) << bad;
  }
}

// The answer names the nearest case's thread and the agreeing ones, and carries the tier's fitted
// confidence.
TEST(SimilarVote, TheDiagnosisNamesItsCasesAndThreads) {
  SimilarIndex index;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &index, &error)) << error;
  const SimilarVote v = VoteSimilarCases(index, SimilarWords("RuntimeError", "alpha beta gamma delta"), {"https://example.org/t/3"});
  ASSERT_GE(v.tier, 0);
  const Diagnosis d = SimilarCaseDiagnosis(index, v, 0);
  EXPECT_EQ(d.rule, "similar:a1");
  EXPECT_EQ(d.category, "dtype.x");
  EXPECT_DOUBLE_EQ(d.confidence, index.tier_fits[static_cast<size_t>(v.tier)].confidence);
  EXPECT_NE(d.explanation.find("https://example.org/t/1"), std::string::npos) << d.explanation;
  EXPECT_NE(d.explanation.find("https://example.org/t/2"), std::string::npos) << d.explanation;
  EXPECT_EQ(d.explanation.find("https://example.org/t/3"), std::string::npos) << d.explanation;
  EXPECT_EQ(d.captures.at("similar_tier"), "near-agree");
  EXPECT_NE(d.ranking.find("near-agree"), std::string::npos) << d.ranking;
}

const Engine& Bundled() {
  static const Engine engine = [] {
    LoadOptions o;
    o.env_path = false;
    return Engine(LoadRules(o).rules);
  }();
  return engine;
}

// The shipped index is what the corpus gives today: a case added, relabelled or read differently since
// it was written makes it stale. Regenerate: build/triage rules similar-index corpus > rules/similar/cases.tsv
TEST(SimilarIndex, TheShippedIndexIsCurrent) {
  std::ifstream in(std::string(TRIAGE_SOURCE_DIR) + "/rules/similar/cases.tsv", std::ios::binary);
  ASSERT_TRUE(in) << "rules/similar/cases.tsv is missing";
  std::ostringstream shipped;
  shipped << in.rdbuf();
  std::string error;
  const std::string built = BuildSimilarIndex(Bundled(), std::string(TRIAGE_SOURCE_DIR) + "/corpus", &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_TRUE(built == shipped.str())
      << "rules/similar/cases.tsv is stale: build/triage rules similar-index corpus > rules/similar/cases.tsv";
  EXPECT_EQ(built.find("\nheldout/"), std::string::npos);  // no held-out case is a known case
  ASSERT_NE(BundledSimilarIndex(), nullptr);
  EXPECT_GT(BundledSimilarIndex()->rows.size(), 1000u);
}

// Note: [Stored tier fits]: the shipped index stores its tiers' fits, and they are what fitting its
// rows gives (the fit's own code, not the builder's text: TheShippedIndexIsCurrent checks that).
TEST(SimilarIndex, TheStoredFitsAreAFreshFit) {
  const SimilarIndex* shipped = BundledSimilarIndex();
  ASSERT_NE(shipped, nullptr);
  EXPECT_TRUE(shipped->fits_stored) << "rules/similar/cases.tsv stores no current fits: build/triage rules similar-index corpus > rules/similar/cases.tsv";
  SimilarIndex refit = *shipped;
  FitSimilarTiers(&refit);
  ASSERT_EQ(refit.tier_fits.size(), shipped->tier_fits.size());
  int answers = 0;
  for (size_t t = 0; t < refit.tier_fits.size(); ++t) {
    EXPECT_EQ(shipped->tier_fits[t].n, refit.tier_fits[t].n) << SimilarTiers()[t].id;
    EXPECT_EQ(shipped->tier_fits[t].right, refit.tier_fits[t].right) << SimilarTiers()[t].id;
    EXPECT_EQ(shipped->tier_fits[t].confidence, refit.tier_fits[t].confidence) << SimilarTiers()[t].id;
    answers += refit.tier_fits[t].n;
  }
  EXPECT_GT(answers, 500);  // the fit voted on the shipped rows
}


// Note: [Similar index image]: the index file's image in the cache directory, read back for the same
// file and program only, and every other image (damaged, cut, stale, another file's) a miss that reads
// the text again, never a crash or another answer.
class SimilarImage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("triage_similar_image_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ + "/rules");
    cache_ = dir_ + "/cache";
    ASSERT_EQ(::mkdir(cache_.c_str(), 0700), 0);
    tsv_ = dir_ + "/rules/cases.tsv";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Writes `bytes` to `path` through a fresh file renamed into place (a new inode), as an editor may.
  static void Write(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp";
    std::ofstream(tmp, std::ios::binary) << bytes;
    std::filesystem::rename(tmp, path);
  }
  std::string ImagePath() const { return cache_ + "/" + SimilarCacheFileName(tsv_); }
  std::unique_ptr<SimilarIndex> Load(SimilarLoad* how) const { return LoadSimilarIndex(tsv_, cache_, how, 0); }
  // Where the image begins in a cache file: after its header, its size and its checksum.
  static size_t ImageStart(const std::string& file) {
    const char magic[8] = {'s', 'i', 'd', 'x', 1, 0, 0, 0};
    const size_t at = file.find(std::string(magic, sizeof magic));
    return at == std::string::npos ? 0 : at;
  }

  std::string dir_, cache_, tsv_;
};

// Two indexes hold the same rows, words, weights and fits.
void ExpectSameIndex(const SimilarIndex& a, const SimilarIndex& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  ASSERT_EQ(a.WordCount(), b.WordCount());
  for (size_t r = 0; r < a.rows.size(); ++r) {
    const SimilarRow &x = a.rows[r], &y = b.rows[r];
    EXPECT_EQ(x.case_path, y.case_path);
    EXPECT_EQ(x.category, y.category);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(std::vector<std::string_view>(x.also.begin(), x.also.end()), std::vector<std::string_view>(y.also.begin(), y.also.end()));
    EXPECT_EQ(std::vector<int>(x.words.begin(), x.words.end()), std::vector<int>(y.words.begin(), y.words.end()));
    EXPECT_EQ(x.norm, y.norm);
  }
  for (size_t w = 0; w < a.WordCount(); ++w) {
    const int id = static_cast<int>(w);
    EXPECT_EQ(a.Word(id), b.Word(id));
    EXPECT_EQ(a.idf[w], b.idf[w]);
    EXPECT_EQ(a.WordId(a.Word(id)), id);
    EXPECT_EQ(b.WordId(a.Word(id)), id);
    EXPECT_EQ(std::vector<int>(a.Postings(id).begin(), a.Postings(id).end()),
              std::vector<int>(b.Postings(id).begin(), b.Postings(id).end()));
  }
  EXPECT_EQ(a.WordId("no-such-word-anywhere"), -1);
  EXPECT_EQ(b.WordId("no-such-word-anywhere"), -1);
  EXPECT_EQ(a.unseen_idf, b.unseen_idf);
  EXPECT_EQ(a.fits_stored, b.fits_stored);
  EXPECT_EQ(SimilarTierFitLines(a), SimilarTierFitLines(b));
  ASSERT_EQ(a.tier_fits.size(), b.tier_fits.size());
  for (size_t t = 0; t < a.tier_fits.size(); ++t) EXPECT_EQ(a.tier_fits[t].confidence, b.tier_fits[t].confidence);
}

TEST_F(SimilarImage, TheShippedIndexReadsTheSameFromItsImage) {
  const std::string text = Read(std::string(TRIAGE_SOURCE_DIR) + "/rules/similar/cases.tsv");
  Write(tsv_, text);
  SimilarIndex parsed;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(text, &parsed, &error)) << error;
  SimilarLoad how;
  const std::unique_ptr<SimilarIndex> first = Load(&how);
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(how.from_cache);
  EXPECT_TRUE(how.written);
  const std::unique_ptr<SimilarIndex> cached = Load(&how);
  ASSERT_NE(cached, nullptr);
  EXPECT_TRUE(how.from_cache);
  EXPECT_FALSE(how.written);
  EXPECT_TRUE(cached->fits_stored);
  ExpectSameIndex(parsed, *first);
  ExpectSameIndex(parsed, *cached);
  // The same votes, each row read as a query with its own thread left out (a copy shares the image).
  const SimilarIndex copy = *cached;
  for (size_t r = 0; r < parsed.rows.size(); r += 7) {
    std::vector<std::string> words;
    for (int w : parsed.rows[r].words) words.emplace_back(parsed.Word(w));
    const std::vector<std::string> out = {std::string(parsed.rows[r].source)};
    const SimilarVote a = VoteSimilarCases(parsed, words, out), b = VoteSimilarCases(copy, words, out);
    ASSERT_EQ(a.nearest.row == nullptr, b.nearest.row == nullptr);
    if (a.nearest.row == nullptr) continue;
    EXPECT_EQ(a.nearest.row->case_path, b.nearest.row->case_path);
    EXPECT_EQ(a.nearest.score, b.nearest.score);
    EXPECT_EQ(a.nearest.shared, b.nearest.shared);
    EXPECT_EQ(a.tier, b.tier);
    EXPECT_EQ(a.agreeing, b.agreeing);
    ASSERT_EQ(a.threads.size(), b.threads.size());
  }
}

// Fits the file does not store are fitted once, from the text, and the image keeps them.
TEST_F(SimilarImage, FitsMadeFromTheRowsAreKept) {
  Write(tsv_, kVoteIndex);
  SimilarIndex parsed;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &parsed, &error)) << error;
  SimilarLoad how;
  ASSERT_NE(Load(&how), nullptr);
  ASSERT_TRUE(how.written);
  const std::unique_ptr<SimilarIndex> cached = Load(&how);
  ASSERT_NE(cached, nullptr);
  EXPECT_TRUE(how.from_cache);
  EXPECT_FALSE(cached->fits_stored);
  ExpectSameIndex(parsed, *cached);
  EXPECT_EQ(cached->rows[3].also[0], "dtype.x");
}

// Every byte of a cache file changed in turn: the checksum (or the header) refuses it, the text is
// read, and the answer is the text's. With the checksum made to agree, the bounds checks still hold:
// no read past the image, whatever it then answers.
TEST_F(SimilarImage, AChangedByteIsAMiss) {
  Write(tsv_, kVoteIndex);
  SimilarLoad how;
  ASSERT_NE(Load(&how), nullptr);
  const std::string good = Read(ImagePath());
  const size_t image = ImageStart(good);
  ASSERT_GT(image, 16u);
  SimilarIndex parsed;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &parsed, &error)) << error;
  const std::vector<std::string> q = SimilarWords("RuntimeError", "alpha beta gamma delta");
  int refused = 0;
  // Every byte of the header and the image's first 512 (its counts, fits, rows, references), then every
  // 7th.
  for (size_t at = 0; at < good.size(); at += at < image + 512 ? 1 : 7) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x41);
    Write(ImagePath(), bad);
    const std::unique_ptr<SimilarIndex> index = Load(&how);
    ASSERT_NE(index, nullptr) << at;
    EXPECT_FALSE(how.from_cache) << at;
    EXPECT_TRUE(how.written) << at;
    EXPECT_EQ(VoteSimilarCases(*index, q, {}).nearest.row->case_path, "wild/x/a1") << at;
    if (at >= image) {  // the same damage behind an agreeing checksum
      const std::uint64_t sum = CacheChecksum(std::string_view(bad).substr(image));
      std::memcpy(&bad[image - 8], &sum, sizeof sum);
      Write(ImagePath(), bad);
      const std::unique_ptr<SimilarIndex> forged = Load(&how);
      ASSERT_NE(forged, nullptr) << at;
      refused += !how.from_cache;
      if (forged->WordCount() > 0) VoteSimilarCases(*forged, q, {});
    }
  }
  EXPECT_GT(refused, 0);
  Write(ImagePath(), good);
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_TRUE(how.from_cache);
}

// A cut file, an empty one, one grown by a byte, and a directory in its place are misses.
TEST_F(SimilarImage, ACutOrGrownImageIsAMiss) {
  Write(tsv_, kVoteIndex);
  SimilarLoad how;
  ASSERT_NE(Load(&how), nullptr);
  const std::string good = Read(ImagePath());
  for (size_t keep : {size_t{0}, size_t{7}, ImageStart(good) - 1, ImageStart(good), ImageStart(good) + 48, good.size() / 2,
                      good.size() - 8, good.size() - 1}) {
    Write(ImagePath(), good.substr(0, keep));
    ASSERT_NE(Load(&how), nullptr) << keep;
    EXPECT_FALSE(how.from_cache) << keep;
  }
  Write(ImagePath(), good + "x");
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_FALSE(how.from_cache);
  std::filesystem::remove(ImagePath());
  std::filesystem::create_directory(ImagePath());
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_FALSE(how.from_cache);
  EXPECT_FALSE(how.written);
}

// An edited index file (another size; the same size in a file renamed into place; a touch) is read
// again, and its image written for it; another file's image, copied under this file's name, is a miss.
TEST_F(SimilarImage, AnEditedIndexFileIsReadAgain) {
  Write(tsv_, kVoteIndex);
  SimilarLoad how;
  ASSERT_NE(Load(&how), nullptr);
  std::string edited = kVoteIndex;
  edited += "wild/z/c2\tindex.z\thttps://example.org/t/5\tclass:valueerror omega psi chi\n";
  Write(tsv_, edited);
  std::unique_ptr<SimilarIndex> index = Load(&how);
  ASSERT_NE(index, nullptr);
  EXPECT_FALSE(how.from_cache);
  EXPECT_EQ(index->rows.size(), 6u);
  index = Load(&how);
  EXPECT_TRUE(how.from_cache);
  EXPECT_EQ(index->rows.size(), 6u);

  std::string relabelled = edited;
  relabelled.replace(relabelled.find("index.z\thttps://example.org/t/5"), 7, "index.y");  // the same size
  Write(tsv_, relabelled);
  index = Load(&how);
  EXPECT_FALSE(how.from_cache);
  EXPECT_EQ(index->rows[5].category, "index.y");
  index = Load(&how);
  EXPECT_TRUE(how.from_cache);
  EXPECT_EQ(index->rows[5].category, "index.y");

  ASSERT_EQ(::utimensat(AT_FDCWD, tsv_.c_str(), nullptr, 0), 0);  // touched: its times move
  index = Load(&how);
  EXPECT_FALSE(how.from_cache);

  // Another index file's image under this one's name.
  const std::string other = dir_ + "/rules/other.tsv";
  Write(other, kVoteIndex);
  ASSERT_NE(LoadSimilarIndex(other, cache_, &how, 0), nullptr);
  ASSERT_TRUE(how.written);
  std::filesystem::copy_file(cache_ + "/" + SimilarCacheFileName(other), ImagePath(),
                             std::filesystem::copy_options::overwrite_existing);
  index = Load(&how);
  ASSERT_NE(index, nullptr);
  EXPECT_FALSE(how.from_cache);
  EXPECT_EQ(index->rows.size(), 6u);
}

// No index file, no index, whatever the cache holds; a malformed one gives none and writes nothing.
TEST_F(SimilarImage, AMissingOrMalformedIndexFileGivesNone) {
  Write(tsv_, kVoteIndex);
  SimilarLoad how;
  ASSERT_NE(Load(&how), nullptr);
  std::filesystem::remove(tsv_);
  EXPECT_EQ(Load(&how), nullptr);
  EXPECT_FALSE(how.from_cache);
  std::filesystem::remove(ImagePath());
  Write(tsv_, "wild/a\tcuda.oom\twords only three fields\n");
  EXPECT_EQ(Load(&how), nullptr);
  EXPECT_FALSE(how.written);
  EXPECT_FALSE(std::filesystem::exists(ImagePath()));
}

// A file changed within the settling time is not cached (an edit in the same timestamp tick could
// keep its stamp); no cache directory reads the text each time.
TEST_F(SimilarImage, AFreshFileOrNoCacheDirectoryReadsTheText) {
  Write(tsv_, kVoteIndex);
  SimilarLoad how;
  ASSERT_NE(LoadSimilarIndex(tsv_, cache_, &how), nullptr);  // the default: two seconds
  EXPECT_FALSE(how.written);
  EXPECT_FALSE(std::filesystem::exists(ImagePath()));
  ASSERT_NE(LoadSimilarIndex(tsv_, "", &how, 0), nullptr);
  EXPECT_FALSE(how.written);
  EXPECT_FALSE(how.from_cache);
  // A cache directory others may write is neither read nor written (Note: [Cache hardening]).
  ASSERT_EQ(::chmod(cache_.c_str(), 0777), 0);
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_FALSE(std::filesystem::exists(ImagePath()));
  ASSERT_EQ(::chmod(cache_.c_str(), 0700), 0);
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_TRUE(how.written);
  ASSERT_EQ(::chmod(cache_.c_str(), 0777), 0);
  ASSERT_NE(Load(&how), nullptr);
  EXPECT_FALSE(how.from_cache);
  ASSERT_EQ(::chmod(cache_.c_str(), 0700), 0);
}

// Note: [Shipped rule cache]: the install's image serves a load whose own cache directory has none,
// and is not copied; one that others may write is not read; the user's own image comes first.
TEST_F(SimilarImage, TheShippedImageServesAFirstLoad) {
  Write(tsv_, kVoteIndex);
  SimilarIndex parsed;
  std::string error;
  ASSERT_TRUE(ParseSimilarIndex(kVoteIndex, &parsed, &error)) << error;
  const std::string shipped = dir_ + "/shipped";
  ASSERT_EQ(::mkdir(shipped.c_str(), 0755), 0);
  SimilarLoad how;
  ASSERT_NE(LoadSimilarIndex(tsv_, shipped, &how, 0), nullptr);  // what the install runs
  ASSERT_TRUE(how.written);
  const std::unique_ptr<SimilarIndex> first = LoadSimilarIndex(tsv_, cache_, &how, 0, shipped);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(how.from_cache);
  EXPECT_TRUE(how.from_shipped);
  EXPECT_FALSE(how.written);
  EXPECT_FALSE(std::filesystem::exists(ImagePath())) << "the shipped image was copied";
  ExpectSameIndex(parsed, *first);
  // A shipped directory others may write is not read: the text is, and the user's image written.
  ASSERT_EQ(::chmod(shipped.c_str(), 0775), 0);
  ASSERT_NE(LoadSimilarIndex(tsv_, cache_, &how, 0, shipped), nullptr);
  EXPECT_FALSE(how.from_cache);
  EXPECT_TRUE(how.written);
  ASSERT_EQ(::chmod(shipped.c_str(), 0755), 0);
  // The user's own image comes first.
  ASSERT_NE(LoadSimilarIndex(tsv_, cache_, &how, 0, shipped), nullptr);
  EXPECT_TRUE(how.from_cache);
  EXPECT_FALSE(how.from_shipped);
  // No cache at all: neither is read.
  ASSERT_NE(LoadSimilarIndex(tsv_, "", &how, 0, shipped), nullptr);
  EXPECT_FALSE(how.from_cache);
}

// The ranker keeps the bundled index's image in the rule set's own cache directory: none when the rules
// were loaded without a cache, the host's when it named one (never the default directory behind its back).
TEST_F(SimilarImage, TheRankerUsesTheRuleSetsCacheDirectory) {
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    main()\n"
      "ValueError: the widget frobnicator refused the quux\n";
  auto images = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(cache_)) {
      n += e.path().filename().string().rfind("similar-", 0) == 0;
    }
    return n;
  };
  LoadOptions off;
  off.system = off.user = off.project = off.env_path = false;
  off.cache = false;
  off.cache_dir = cache_;  // ignored: the cache is off
  LoadResult no_cache = LoadRules(off);
  EXPECT_EQ(no_cache.rules->cache_dir, "");
  // Even where the default directory is this one, a set loaded without a cache writes nothing.
  const char* had = std::getenv("TRIAGE_CACHE_DIR");
  const std::string before = had ? had : "";
  ::setenv("TRIAGE_CACHE_DIR", cache_.c_str(), 1);
  Engine(no_cache.rules).DiagnoseText(log);
  if (had) ::setenv("TRIAGE_CACHE_DIR", before.c_str(), 1); else ::unsetenv("TRIAGE_CACHE_DIR");
  EXPECT_EQ(images(), 0);
  LoadOptions on = off;
  on.cache = true;
  LoadResult cached = LoadRules(on);
  EXPECT_EQ(cached.rules->cache_dir, cache_);
  Engine(cached.rules).DiagnoseText(log);
  EXPECT_EQ(images(), 1);  // the same log reaches the vote: the index is read, its image kept here
}

}  // namespace
}  // namespace triage
