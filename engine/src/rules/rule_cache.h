// Rule-set cache: the validated result of parsing every rule file, stored on disk and keyed by a hash
// of the files' contents, so that a `triage` run skips YAML parsing and validation (Note: [Rule cache]).
//
// Note: [Rule cache]
// Loading ~175 rules costs ~50-90 ms of CPU, 60% of it in yaml-cpp and most of the rest in validation
// and in computing each pattern's required literals; `triage` sits in shell pipelines and must start in
// milliseconds. The cache holds exactly what those steps produce: the rules (after overrides and
// `disable`), the disabled list, every problem reported, each pattern's required literals and the
// line prefilter's plan (its keyword choice, the patterns each keyword guards, and where the scanner's
// anchors lie: LineScanner::Layout). A load hashes the inputs (the files' paths, origins, layers and
// bytes; the options that change validation; the cache format; the build) and, on a hit, only builds
// the prefilter's scanners from the plan's tables: the RE2::Set over every pattern is compiled at its
// first need (Note: [Pattern set] in rule.h), which a short log never has. A miss (a rule file edited
// or added) reads again only the files whose own part is not in the parts file (Note: [Rule parts]
// in rule_loader.cc).
// The key hashes ~0.8 MB of rule files on every start: SHA-256 runs on the x86 SHA extensions where
// the CPU has them (sha256.h).
// Any mismatch, truncation or corruption is a miss (a checksum ends each entry and part: Note: [Cache
// checksums] in rule_cache.cc): the cache can make loading faster, never different.
// Files are written to a temporary name and renamed, so concurrent runs never read half a file.
//
// Note: [Cache hardening]
// The cache directory is a place where another user, or a planted file, could change what triage
// loads, so nothing in it is trusted by default (issue 14): the directory is created 0700, and used
// only when it is owned by the user and writable by no one else; an entry is read only when it is a
// regular file owned by the user, not a symlink (O_NOFOLLOW; a FIFO or device is never opened for a
// blocking read), and at most kMaxEntryBytes long; entries are written with mkstemp (a fresh name,
// O_EXCL: a link planted at a guessable temporary name is never followed) and renamed into place; and
// an entry records the key it was built for, the SHA-256 of every input of the load (the rule files'
// bytes among them), which must equal the key of the load that reads it: an entry built from other
// rule files, copied under this key's name, is a miss.
#ifndef TRIAGE_ENGINE_RULE_CACHE_H_
#define TRIAGE_ENGINE_RULE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log/line_scanner.h"
#include "rules/rule.h"
#include "rules/sha256.h"

namespace triage {

// Note: [Texts on demand]
// Most of a rule is what a report of it shows: its explanation, hypotheses (text, test, fix and their
// C++ versions), checks, verification, references and examples, and the code of its Lua chunks, which
// only a call of the rule runs: ~2.3 MB of the bundled rules' ~2.8 MB entry, against ~0.5 MB that
// matching reads. A warm `triage` start copied all but the examples (Note: [Examples left out]) into
// strings and vectors on the heap (~1.9 MB; ~490 of its ~1,290 page faults, at ~2-2.5 us each on the
// VMs of tests/bench/README.md) for a report that shows one or two rules. So an
// entry holds each rule's texts after everything else of the rule (RuleTextFields in rule_cache.cc),
// and a load asked to (LoadOptions::texts_on_demand, set by `triage` diagnosing logs) reads the rest
// of each rule and only reads through its texts, every count, enum and length checked as when they
// are kept, the entry's checksum too (a damaged entry is as much a miss; the examples, which such a
// load leaves out, are in a section it does not read: Note: [Examples apart]), keeping the span each
// rule's texts take in the mapped entry. RuleSet::Full reads a rule's texts from that span the first
// time something asks for them (the ranker, for the rules a log's messages matched; the tools), into
// a copy of the rule kept for the set's life. The mapping stays open as long as the set: cache files
// are only ever replaced whole (renamed over, Note: [Mapped cache entry]), never written in place,
// so the spans keep the bytes the load checked.
struct DeferredTexts {
  std::shared_ptr<const void> keep;  // what holds `payload`'s bytes (the mapped entry)
  std::string_view payload;          // the serialised ParsedRules the spans index
  struct Span {
    size_t begin = 0, end = 0;
    size_t examples_begin = 0, examples_end = 0;  // in `examples_section` (Note: [Examples apart])
  };
  std::vector<Span> spans;  // per rule, in ParsedRules::rules' order
  bool examples = true;     // false: the examples are left out here too (Note: [Examples left out])
  bool split = false;       // the examples are in an examples section (Note: [Examples apart] in rule_cache.cc)
  std::string_view examples_section;  // that section, when `examples`
};
// Reads rule `rule`'s texts from `texts` into *into (its other fields left as they are); false when
// its span does not read.
bool ReadDeferredTexts(const DeferredTexts& texts, size_t rule, Rule* into);

// What a load produces before compiling: the cached payload.
struct ParsedRules {
  std::vector<Rule> rules;
  std::vector<DisabledRule> disabled;
  std::vector<Problem> problems;
  // For each pattern of each rule, in rule order then pattern order: its required literals, or
  // nullopt when it has none (the prefilter's slow path).
  std::vector<std::optional<std::vector<std::string>>> atoms;
  // The line prefilter's plan made from those atoms (PlanLinePrefilter): its keyword choice and which
  // patterns each keyword guards. Empty when not computed (then Compile makes it).
  PrefilterPlan plan;
  // The calibration map (Note: [Calibration map]) parsed from the search path's last calibration.yaml,
  // as CalibrationMap::Flat gives it; `calibrated` false when there is none or it is broken (its
  // problem is then among `problems`).
  bool calibrated = false;
  std::vector<double> calibration;
  // Not serialised: where the rules' texts are when the load left them in the entry (Note: [Texts
  // on demand]); null when the rules hold them.
  std::shared_ptr<const DeferredTexts> deferred;
};

// What reading one rule file gives (Note: [Rule parts]): the rule, when the file holds a valid one,
// the problems found in the file, and its patterns' required literals; `key` is the SHA-256 (hex) of
// everything the reading depends on (the program, the options that change validation, the file's
// path and bytes, and those of the Lua file beside it).
struct RulePart {
  std::string key;
  bool ok = false;
  Rule rule;
  std::vector<Problem> problems;
  std::vector<std::optional<std::vector<std::string>>> atoms;  // per pattern of `rule`, as ParsedRules::atoms
};

// Incrementally hashes the inputs of a load (SHA-256; inputs are length-prefixed).
class CacheKey {
 public:
  void Add(std::string_view bytes);
  void Add(std::uint64_t value);
  // Returns the key as 64 hex digits.
  std::string Hex() const;

 private:
  Sha256 sha_;
};

// The largest entry read (Note: [Cache hardening]); the bundled rules' entry is under 1 MiB.
constexpr std::uint64_t kMaxEntryBytes = 64ull << 20;

// Returns the cache directory: TRIAGE_CACHE_DIR, else $XDG_CACHE_HOME/triage, else ~/.cache/triage;
// "" when caching is off (TRIAGE_NO_CACHE set, or no such variable).
std::string DefaultRuleCacheDir();

// Note: [Shipped rule cache]
// A fresh install's first run would parse every bundled rule (~130 ms of CPU). `cmake --install` runs
// the installed `triage` once with the cache directory set to P/share/triage/rule-cache, beside the
// bundled rules (cmake/install.cmake), so the install holds the entry and the parts a user's first
// load asks for when it has no rules of its own (the key names the installed program and the
// installed files: a moved prefix or another binary misses it, and is only cold). A load whose own
// cache misses reads the shipped entry or, when it has other rules too, the shipped parts of the
// bundled files. The install's run waits until the files are settled (Note: [Rule file stamps]), so
// it leaves a stamp index too: a user's first run then lists and stat(2)s the files, finds the
// shipped index and entry, and starts as a warm one does, reading and hashing no rule file. The
// shipped entry is read as an own entry is (texts on demand, examples left out where asked) and is
// not copied: the user's stamp index may name it, and a start reads an entry from its own cache or
// else from the install's (copying the ~2.8 MB entry and parsing every text to write it again took a
// first run from the shipped cache ~4,100 page faults against a warm start's ~890, and 31-35 ms of
// CPU against 8-12). The shipped directory is trusted as the installed program is: it and its files
// must be owned by root or by this user and writable by no one else. It holds the similar-case
// index's image too (Note: [Similar index image] in diagnose/similar_case.cc), made by a second run
// of the install on a log no rule knows, read where the user's directory has none.
//
// Returns the shipped cache directory: rule-cache beside the bundled rules directory.
std::string ShippedRuleCacheDir();

// Who may own a cache directory and its files (Note: [Cache hardening]).
enum class CacheOwner { kUser, kUserOrRoot };

// Returns the 64-bit checksum that ends every cache entry and part (Note: [Cache checksums] in
// rule_cache.cc): the same on every CPU; `portable` forces the portable rounds (tests compare them).
std::uint64_t CacheChecksum(std::string_view bytes, bool portable = false);

// Serialises / parses the payload. Parse returns false on any inconsistency.
std::string SerializeParsedRules(const ParsedRules& parsed);
// `examples` false: every rule's examples are read over and left out (Note: [Examples left out]).
// `keep` non-null: the rules' texts are read over and left in `bytes`, which `keep` holds (Note:
// [Texts on demand]).
bool ParseParsedRules(std::string_view bytes, ParsedRules* parsed, bool examples = true,
                      std::shared_ptr<const void> keep = nullptr);

// Serialises / parses a list of parts (Note: [Parts file layout] in rule_cache.cc). Parse returns false
// on any inconsistency.
std::string SerializeRuleParts(const std::vector<RulePart>& parts);
bool ParseRuleParts(std::string_view bytes, std::vector<RulePart>* parts);

// One part as the parts file holds it: its key and its serialised bytes (views into the file's bytes).
struct StoredPart {
  std::string_view key;
  std::string_view bytes;
};
// What SerializeRuleParts made, indexed without parsing the parts; false when the index is bad.
bool IndexRuleParts(std::string_view bytes, std::vector<StoredPart>* parts);
// One part's bytes, as StoredPart::bytes holds them.
std::string SerializeRulePart(const RulePart& part);
// Parses one part; false when its bytes are bad or do not hold `stored.key`.
bool ParseRulePart(const StoredPart& stored, RulePart* part);

// The most parts WriteRuleParts keeps (the current load's first, then earlier ones). A load that
// misses the whole-set entry indexes every part in the file but parses only those it uses; this bounds
// the file: ~1,600 parts (7.8 MB) took a miss on the bundled rules to 52 MB peak RSS when every part
// was parsed, against 15 MB for a hit; 1024 (four bundled rule sets' worth) keeps a miss well under the
// 64 MB budget (tests/bench/README.md).
constexpr size_t kMaxRuleParts = 1024;

// A cache file mapped read-only (Note: [Mapped cache entry] in rule_cache.cc).
class MappedCacheFile {
 public:
  MappedCacheFile() = default;
  MappedCacheFile(const MappedCacheFile&) = delete;
  MappedCacheFile& operator=(const MappedCacheFile&) = delete;
  ~MappedCacheFile();
  // Maps a regular file owned as `owner` asks, not through a symlink, of at most kMaxEntryBytes (the
  // checks of every cache read, Note: [Cache hardening]); false when it cannot (an empty file
  // cannot be mapped). Maps one file at most; `whole`: the caller reads all of it, so it is read at
  // once into transparent huge pages where the kernel offers them (Note: [Entry on huge pages] in
  // rule_cache.cc), else its pages are mapped at once (MAP_POPULATE) rather than a batch per fault.
  bool Map(const std::string& path, CacheOwner owner, bool whole = false);
  // As Map(path, owner, true), reading only the file's first `base` + L bytes, L the little-endian
  // 64-bit number at byte `at` (an entry's first section: Note: [Examples apart] in rule_cache.cc),
  // or the whole file where L goes past its end.
  bool MapPrefix(const std::string& path, CacheOwner owner, size_t at, size_t base);
  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }
  std::size_t file_size() const { return file_size_; }  // the whole file's size

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;  // the mapping's length (the file's size, or the huge pages' whole windows)
  std::size_t file_size_ = 0;
  std::shared_ptr<void> windows_;  // huge windows shared with other reads (Note: [Shared huge windows]); unmapped by it
  bool MapFirst(const std::string& path, CacheOwner owner, bool whole, size_t at, size_t base);
};

// Maps the parts file of `dir` (kRulePartsFile) into *file and indexes it into *parts (views into
// it); false when there is none, it is bad, or the directory or file is not safe to read (Note:
// [Cache hardening]). A part is only ever used for a file whose inputs hash to its key.
bool ReadRuleParts(const std::string& dir, MappedCacheFile* file, std::vector<StoredPart>* parts,
                   CacheOwner owner = CacheOwner::kUser);
// Writes the parts file (best effort, as WriteRuleCache): the first kMaxRuleParts of `parts`, whose
// bytes are copied as they are.
void WriteRuleParts(const std::string& dir, const std::vector<StoredPart>& parts);
constexpr char kRulePartsFile[] = "rule-parts.bin";

// Reads the stamp index for `stamp_key` from `dir` (Note: [Rule file stamps] in rule_loader.cc): the key
// of the entry built from the rule files those stamps describe, into *content_key (64 hex digits);
// false when there is none, it is malformed, it was written for other stamp records than `records`
// (Note: [Stamp records compared]), or it is not safe to read (Note: [Cache hardening]).
bool ReadStampIndex(const std::string& dir, const std::string& stamp_key, std::string_view records,
                    std::string* content_key, CacheOwner owner = CacheOwner::kUser);
// Writes it with its records (best effort), and keeps at most a few dozen stamp indexes in `dir`.
void WriteStampIndex(const std::string& dir, const std::string& stamp_key, std::string_view records,
                     const std::string& content_key);

// Maps file `name` of cache directory `dir` whole into *file (MappedCacheFile::Map with `whole`: read
// into huge pages where the kernel offers them, Note: [Entry on huge pages] in rule_cache.cc), with the
// checks of every cache read (Note: [Cache hardening]); false when it cannot. For other caches than the
// rules' (Note: [Similar index image] in diagnose/similar_case.cc). `owner`: kUserOrRoot for the
// install's directory (Note: [Shipped rule cache]).
bool MapCacheFile(const std::string& dir, const std::string& name, MappedCacheFile* file,
                  CacheOwner owner = CacheOwner::kUser);
// Writes `pieces` as file `name` of `dir` (best effort, as WriteRuleCache: a fresh temporary file
// renamed into place, `dir` made 0700 when missing), then keeps the newest `keep` files of `dir` whose
// names begin with `prefix` and end with `extension`; false when it was not written.
bool WriteCacheFile(const std::string& dir, const std::string& name, const std::vector<std::string_view>& pieces,
                    const std::string& prefix, const std::string& extension, int keep);

// Note: [Compiled pattern sets]
// A load that misses the whole-set entry compiles the RE2::Set at once, so that a set RE2 refuses is
// reported (Note: [Pattern set] in rule.h): ~9 ms of CPU, a quarter of a start after a rule edit
// (since Note: [Set size bound] in rule_loader.cc, only for a set its patterns' sizes do not bound). An
// edit of a rule's text, advice or examples leaves every pattern as it was, and the set of the same
// patterns, compiled by the same program, compiles again. So the cache directory keeps the keys of the
// last kKeepPatternSets pattern lists that compiled (PatternSetKey: the program, the options and every
// pattern in set order); a load whose list is among them leaves the set to its first need, as a
// cache hit does, and reports the same problems. Any other list (a pattern edited, added or removed)
// is compiled at once as before. A planted or stale key can at worst name a set that would fail: then
// the set is compiled at its first need and fails there, and Match asks the candidates, as the
// reported failure would have had it do (Note: [Pattern set] in rule.h); the file is checked as the
// entries are (Note: [Cache hardening]).
constexpr char kPatternSetsFile[] = "pattern-sets.key";
constexpr int kKeepPatternSets = 16;
// True when `dir`'s record holds `set_key` (64 hex digits).
bool KnownPatternSet(const std::string& dir, const std::string& set_key);
// Adds `set_key` to the record (best effort), keeping the newest kKeepPatternSets.
void RecordPatternSet(const std::string& dir, const std::string& set_key);

// Note: [Reused prefilter plan]
// After a rule edit the whole-set entry misses, and the line prefilter's plan (its keyword choice,
// which patterns each keyword guards, the scanner's anchor layout: PlanLinePrefilter) was made again,
// ~12% of such a start, though it depends only on every pattern's required literals, in order, and
// on the program (its idle keywords and its way of choosing). An edit of a rule's text, advice,
// examples, or of a pattern in a way that keeps its literals, leaves them as they were. So a load
// that makes a plan keeps it in `dir` under PlanKey (the program, the options, every pattern's
// literals), the newest kKeepPlans of them; a load whose literals hash to a kept plan's key takes it
// instead of planning. A plan file is checked as the entries are (Note: [Cache hardening], Note:
// [Cache checksums]); a plan that does not fit the patterns is made again anyway (BuildLinePrefilter).
constexpr int kKeepPlans = 8;
// Reads the plan kept for `plan_key` (64 hex digits); false when there is none or it is bad.
bool ReadPrefilterPlan(const std::string& dir, const std::string& plan_key, PrefilterPlan* plan);
// Keeps `plan` under `plan_key` (best effort).
void WritePrefilterPlan(const std::string& dir, const std::string& plan_key, const PrefilterPlan& plan);

// Reads the entry for `key` from `dir`; false on a miss, a bad entry, or a directory or entry that is
// not safe to read (Note: [Cache hardening]). `examples` false: without the rules' examples.
// `texts_on_demand`: the rules' texts left in the mapped entry (Note: [Texts on demand]).
bool ReadRuleCache(const std::string& dir, const std::string& key, ParsedRules* parsed,
                   CacheOwner owner = CacheOwner::kUser, bool examples = true, bool texts_on_demand = false);
// Writes the entry (best effort: a read-only or full disk, or a directory that is not safe, only
// costs the next load its speed), and keeps at most a few entries in `dir`. Creates `dir` 0700.
void WriteRuleCache(const std::string& dir, const std::string& key, const ParsedRules& parsed);
// Writes an entry whose payload (SerializeParsedRules' bytes) is at hand, as WriteRuleCache does.
void WriteRuleCacheBytes(const std::string& dir, const std::string& key, std::string_view payload);

// Note: [Bundled rule image]
// With no cache at all (TRIAGE_NO_CACHE, an empty or unwritable cache directory, a first run with no
// shipped cache) a load parsed every bundled rule file: ~330 M instructions, 55-95 ms, for the same
// bytes at every such start. The build makes what that load makes, once: engine/tools/rule_image.cc,
// linked with the engine, loads the bundled rules with no cache (MakeBundledRuleImage in
// rule_loader.cc) and writes the whole set's payload (a cache entry's, the prefilter's plan in it)
// and each bundled file's part; the `triage` command embeds those bytes
// (engine/tools/embed_rule_image.cc) and notes them before main (internal::NoteBundledRuleImage). A
// load with no entry of its own or shipped, whose files are the bundled directory's alone, takes the
// set from the image when its key agrees: the SHA-256 of the files' paths below the bundled
// directory, their layer and bytes (each file read and hashed, as a cache miss does), the
// calibration file's, the options that change validation and the version; an image is made and read
// by the same build, so the program is the same. One with files of its own, or an edited bundled
// file, takes from the image the parts of the bundled files whose bytes agree (ImagePartKey) and
// reads the others; a part with a problem is not in the image, nor is the set when it has one. Paths
// in the image name the directory it was made from: a load from another (an install) rewrites the
// rules' file names to its own (RebaseRule). The entry and each part are checked as a cache's are
// (Note: [Cache checksums]); a damaged or unreadable one is a miss and the files are read. The image
// is no cache a user can write: it is part of the program, and only the bundled files' own bytes
// select it.
struct BundledImage {
  std::string_view key;    // the load's key it serves (ImageKey in rule_loader.cc)
  std::string_view root;   // the bundled directory it was made from, as its files' paths begin
  std::string_view entry;  // the whole set's payload; empty when the set had a problem
  std::vector<StoredPart> parts;  // each bundled file's part under its ImagePartKey
};
std::string SerializeBundledImage(std::string_view key, std::string_view root, std::string_view entry,
                                  const std::vector<StoredPart>& parts);
// Indexes an image's bytes into *image (views into them); false when they are not an image.
bool IndexBundledImage(std::string_view bytes, BundledImage* image);

}  // namespace triage

#endif  // TRIAGE_ENGINE_RULE_CACHE_H_
