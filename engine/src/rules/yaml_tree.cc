#include "rules/yaml_tree.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/node/convert.h>
#include <yaml-cpp/node/impl.h>
#include <yaml-cpp/node/node.h>
#include <yaml-cpp/parser.h>

namespace triage {

// Note: [Rule file YAML]
// Loading the bundled rules with no cache spent ~2/3 of its instructions (~1.25 G of ~1.9 G, callgrind)
// in YAML::Load, nearly all of it in yaml-cpp's scanner (its RegEx matchers run per character); building
// its node graph was a small part, so driving its parser through the event API would not have paid.
// Rule files are instead read by a small reader of the YAML they use (ReadYamlSubset): block maps and
// sequences (an indentless one under a key too), single-line plain scalars, single- and double-quoted
// scalars (over several lines too, with the common escapes), literal and folded block scalars with
// their chomping and indentation indicators, and one-line flow sequences and maps of scalars. Anything
// else (anchors, aliases, tags, `?` keys, documents markers, directives, tabs, CR, control bytes, an
// empty value, a plain scalar continued on the next line, a flow collection over several lines, any
// doubtful indentation...) makes it give up before it yields anything, and the text is parsed by
// yaml-cpp (ParseYamlWithYamlCpp), through the same tree, so yaml-cpp alone reports every malformed
// file, with its messages and marks. Where the reader accepts a text, its tree is the one yaml-cpp
// builds from it: the same kinds (the plain `~`/`null`/`Null`/`NULL` null), scalars and marks (a
// collection's at its first key or `-`, or its bracket; a scalar's at its first character, quote or
// block indicator); its scalar scanning follows yaml-cpp's (trailing blanks, folding and chomping
// included). tests/yaml_tree_test.cc compares the two on every file under rules/ and the test
// fixtures, marks included, and on crafted texts at the subset's edges. Both yield the YamlTree the
// rule readers walk (YamlNode answers as YAML::Node), so a rule file reads the same whichever way.
// Reading the 342 bundled files (~1.5 MB) this way took ~60 M instructions, against ~1250 M for
// YAML::Load; a tree is three arrays and the scalars' strings, where yaml-cpp made a shared node per
// value. The bytes are checked eight at a time and quotes and colons found with memchr (2026-11-29:
// the 415 files, ~1.9 MB, in ~35 M instructions).

YamlNode YamlTree::Root() const { return has_root ? YamlNode(this, 0) : YamlNode(); }

const std::string& YamlNode::Scalar() const {
  static const std::string kEmpty;
  CheckValid();
  if (!tree_ || item().type != YAML::NodeType::Scalar) return kEmpty;
  return tree_->scalars[item().scalar];
}

std::size_t YamlNode::size() const {
  CheckValid();
  if (!tree_) return 0;
  const YamlTree::Item& it = item();
  if (it.type == YAML::NodeType::Sequence) return it.count;
  if (it.type == YAML::NodeType::Map) return it.count / 2;
  return 0;
}

YamlNode YamlNode::operator[](std::string_view key) const {  // a view: the readers pass literals
  CheckValid();
  if (!tree_) return Invalid(std::string(key));
  const YamlTree::Item& it = item();
  if (it.type == YAML::NodeType::Scalar) throw YAML::BadSubscript(it.mark, std::string(key));
  if (it.type != YAML::NodeType::Map) return Invalid(std::string(key));
  for (uint32_t i = it.first; i < it.first + it.count; i += 2) {
    const YamlTree::Item& k = tree_->items[tree_->children[i]];
    if (k.type == YAML::NodeType::Scalar && tree_->scalars[k.scalar] == key) {
      return YamlNode(tree_, tree_->children[i + 1]);
    }
  }
  return Invalid(std::string(key));
}

YamlNode YamlNode::operator[](std::size_t i) const {
  CheckValid();
  const std::string key = std::to_string(i);
  if (!tree_) return Invalid(key);
  const YamlTree::Item& it = item();
  if (it.type == YAML::NodeType::Scalar) throw YAML::BadSubscript(it.mark, i);
  if (it.type != YAML::NodeType::Sequence || i >= it.count) return Invalid(key);
  return YamlNode(tree_, tree_->children[it.first + i]);
}

YamlNode::Iterator YamlNode::begin() const {
  if (!valid_ || !tree_) return Iterator(tree_, 0, false);
  const YamlTree::Item& it = item();
  bool map = it.type == YAML::NodeType::Map;
  if (!map && it.type != YAML::NodeType::Sequence) return Iterator(tree_, 0, false);
  return Iterator(tree_, it.first, map);
}

YamlNode::Iterator YamlNode::end() const {
  if (!valid_ || !tree_) return Iterator(tree_, 0, false);
  const YamlTree::Item& it = item();
  bool map = it.type == YAML::NodeType::Map;
  if (!map && it.type != YAML::NodeType::Sequence) return Iterator(tree_, 0, false);
  return Iterator(tree_, it.first + it.count, map);
}

YamlEntry YamlNode::Iterator::operator*() const {
  if (!map_) return YamlEntry(YamlNode(tree_, tree_->children[i_]));
  YamlEntry e;
  e.first = YamlNode(tree_, tree_->children[i_]);
  e.second = YamlNode(tree_, tree_->children[i_ + 1]);
  return e;
}

namespace {

// ForEachRepeatedKey below the node `index`. `seen` holds each open map's keys with their first places,
// the outer maps' first; a map's own begin at `base` and are dropped when it is done. A map of a few
// keys (a rule file holds ~10,000 such) is searched in turn; past kFewKeys its keys go into a std::map.
void RepeatedKeys(const YamlTree& tree, uint32_t index, std::vector<std::pair<std::string_view, uint32_t>>* seen,
                  const std::function<void(const std::string&, const YAML::Mark&, const YAML::Mark&)>& report) {
  const YamlTree::Item& it = tree.items[index];
  if (it.type == YAML::NodeType::Sequence) {
    for (uint32_t c = it.first; c < it.first + it.count; ++c) RepeatedKeys(tree, tree.children[c], seen, report);
    return;
  }
  if (it.type != YAML::NodeType::Map) return;
  constexpr size_t kFewKeys = 32;
  const size_t base = seen->size();
  std::map<std::string_view, uint32_t> many;
  for (uint32_t c = it.first; c < it.first + it.count; c += 2) {  // key, value, key, value...
    const uint32_t key = tree.children[c];
    const YamlTree::Item& k = tree.items[key];
    if (k.type == YAML::NodeType::Scalar) {
      const std::string& text = tree.scalars[k.scalar];
      uint32_t first = 0;
      bool repeated = false;
      if (many.empty()) {
        for (size_t i = base; i < seen->size(); ++i) {
          if ((*seen)[i].first == text) {
            first = (*seen)[i].second;
            repeated = true;
            break;
          }
        }
        if (!repeated) {
          seen->emplace_back(text, key);
          if (seen->size() - base > kFewKeys) many.insert(seen->begin() + static_cast<std::ptrdiff_t>(base), seen->end());
        }
      } else {
        auto [at, fresh] = many.emplace(text, key);
        if (!fresh) {
          first = at->second;
          repeated = true;
        }
      }
      if (repeated) report(text, tree.items[first].mark, k.mark);
    }
    const size_t mine = seen->size();
    RepeatedKeys(tree, tree.children[c + 1], seen, report);
    seen->resize(mine);
  }
  seen->resize(base);
}

}  // namespace

void ForEachRepeatedKey(const YamlNode& node,
                        const std::function<void(const std::string&, const YAML::Mark&, const YAML::Mark&)>& report) {
  node.CheckValid();
  if (!node.tree_) return;
  std::vector<std::pair<std::string_view, uint32_t>> seen;
  RepeatedKeys(*node.tree_, node.index_, &seen, report);
}

uint32_t YamlTreeBuilder::New(YAML::NodeType::value type, const YAML::Mark& mark) {
  uint32_t index = static_cast<uint32_t>(tree_->items.size());
  YamlTree::Item item;
  item.type = type;
  item.mark = mark;
  tree_->items.push_back(item);
  return index;
}

void YamlTreeBuilder::Add(uint32_t index) {
  if (open_.empty()) {
    tree_->has_root = true;  // the first node started at the top is the root (items[0])
    return;
  }
  pending_.push_back(index);
}

uint32_t YamlTreeBuilder::Scalar(const YAML::Mark& mark, std::string value) {
  uint32_t index = New(YAML::NodeType::Scalar, mark);
  tree_->items[index].scalar = static_cast<uint32_t>(tree_->scalars.size());
  tree_->scalars.push_back(std::move(value));
  Add(index);
  return index;
}

uint32_t YamlTreeBuilder::Null(const YAML::Mark& mark) {
  uint32_t index = New(YAML::NodeType::Null, mark);
  Add(index);
  return index;
}

uint32_t YamlTreeBuilder::Start(YAML::NodeType::value type, const YAML::Mark& mark) {
  uint32_t index = New(type, mark);
  Add(index);
  open_.emplace_back(index, pending_.size());
  return index;
}

void YamlTreeBuilder::End() {
  auto [index, from] = open_.back();
  open_.pop_back();
  YamlTree::Item& item = tree_->items[index];
  item.first = static_cast<uint32_t>(tree_->children.size());
  item.count = static_cast<uint32_t>(pending_.size() - from);
  tree_->children.insert(tree_->children.end(), pending_.begin() + static_cast<std::ptrdiff_t>(from), pending_.end());
  pending_.resize(from);
}

namespace {

// yaml-cpp's parser's events -> a YamlTree (what its NodeBuilder does for YAML::Node).
class TreeEvents : public YAML::EventHandler {
 public:
  explicit TreeEvents(YamlTree* tree) : builder_(tree) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Keep(anchor, builder_.Null(mark)); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override { builder_.Alias(anchors_.at(anchor)); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    Keep(anchor, builder_.Scalar(mark, value));
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    Keep(anchor, builder_.StartSequence(mark));
  }
  void OnSequenceEnd() override { builder_.End(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    Keep(anchor, builder_.StartMap(mark));
  }
  void OnMapEnd() override { builder_.End(); }

 private:
  void Keep(YAML::anchor_t anchor, uint32_t index) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = index;
  }
  YamlTreeBuilder builder_;
  std::map<YAML::anchor_t, uint32_t> anchors_;
};

// The subset reader (Note: [Rule file YAML]). Every method throws Unsupported where the text leaves
// the subset; the caller then hands the whole text to yaml-cpp.
struct Unsupported {};

// The reader recurses once per nested collection; a hostile file ("[[[[..." 400 KB deep) would
// overflow the stack. Rule files nest a few levels: deeper than kMaxNesting leaves the subset, and
// yaml-cpp, whose parser bounds its own depth, reports the file as bad YAML.
constexpr int kMaxNesting = 64;
struct Nesting {
  explicit Nesting(int* depth) : depth_(depth) {
    if (++*depth_ > kMaxNesting) throw Unsupported();
  }
  ~Nesting() { --*depth_; }
  Nesting(const Nesting&) = delete;
  Nesting& operator=(const Nesting&) = delete;
  int* depth_;
};

// How many of the eight bytes at `p` come before the first that is neither printable ASCII (0x20 to
// 0x7e) nor a line break: 8 when all eight are (SubsetReader::CheckBytes). Each test is exact byte by
// byte: no sum carries out of a byte, as every byte's low seven bits are summed with at most 0x7f.
std::size_t PlainBytes(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t low = w & ~kHigh;                                      // each byte's low seven bits
  const std::uint64_t printable = (low + 0x60 * kOnes) & kHigh;              // low >= 0x20
  const std::uint64_t del = (low + kOnes) & kHigh;                           // low == 0x7f
  const std::uint64_t newline = ~((low ^ (0x0a * kOnes)) + 0x7f * kOnes) & kHigh;  // low == '\n'
  const std::uint64_t other = (w & kHigh) | (~printable & ~newline & kHigh) | del;
  if (other == 0) return 8;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return static_cast<std::size_t>(__builtin_ctzll(other)) / 8;  // the first byte is the lowest
#else
  return 0;
#endif
}

class SubsetReader {
 public:
  SubsetReader(const std::string& text, YamlTree* tree) : s_(text), builder_(tree) {}

  void Read() {
    tabs_ = CheckBytes();
    starts_.reserve(s_.size() / 32 + 1);
    ends_.reserve(s_.size() / 32 + 1);
    for (std::size_t p = 0;;) {
      // Document markers and directives are yaml-cpp's.
      const char* b = s_.data() + p;
      const std::size_t rest = s_.size() - p;
      if (rest >= 3 && ((b[0] == '-' && b[1] == '-' && b[2] == '-') || (b[0] == '.' && b[1] == '.' && b[2] == '.'))) {
        throw Unsupported();
      }
      if (rest >= 1 && b[0] == '%') throw Unsupported();
      const void* nl = std::memchr(b, '\n', rest);
      starts_.push_back(p);
      if (nl == nullptr) {
        ends_.push_back(s_.size());
        break;
      }
      ends_.push_back(static_cast<std::size_t>(static_cast<const char*>(nl) - s_.data()));
      p = ends_.back() + 1;
      if (p == s_.size()) break;  // a final newline ends the last line
    }
    SkipBlank();
    if (li_ >= starts_.size() || Indent(li_) != 0) throw Unsupported();
    BlockNode(0, -1);
    SkipBlank();
    if (li_ < starts_.size()) throw Unsupported();
    // A tab is read only as text: inside quotes, or in a block scalar past its indentation. Any
    // other (indentation, separation, a plain scalar) is yaml-cpp's.
    if (tabs_read_ != tabs_) throw Unsupported();
  }

 private:
  // Bytes the reader leaves to yaml-cpp: tabs, CR, other control bytes, a leading BOM or non-ASCII
  // byte (yaml-cpp guesses the encoding from the first bytes), line separators it might break at,
  // and invalid UTF-8. Returns the number of tabs. Eight bytes at a time while they are printable
  // ASCII or line breaks (Note: [Rule file YAML]: most of a rule file), byte by byte from the first
  // other one.
  std::size_t CheckBytes() const {
    if (s_.empty()) throw Unsupported();
    const auto* u = reinterpret_cast<const unsigned char*>(s_.data());
    const std::size_t n = s_.size();
    if (u[0] >= 0x80) throw Unsupported();
    std::size_t tabs = 0;
    for (std::size_t i = 0; i < n;) {
      if (i + 8 <= n) {
        const std::size_t plain = PlainBytes(u + i);
        i += plain;
        if (plain == 8) continue;
      }
      unsigned char c = u[i];
      if (c >= 0x20 && c < 0x7f) {
        ++i;
        continue;
      }
      if (c < 0x80) {
        if (c != '\n' && c != '\t') throw Unsupported();
        tabs += c == '\t';
        ++i;
        continue;
      }
      std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
      if (len == 0 || c > 0xf4 || i + len > n) throw Unsupported();
      for (std::size_t k = 1; k < len; ++k) {
        if ((u[i + k] & 0xc0) != 0x80) throw Unsupported();
      }
      if (c == 0xc2 && u[i + 1] == 0x85) throw Unsupported();                            // NEL
      if (c == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9)) throw Unsupported();  // LS, PS
      if (c == 0xef && u[i + 1] == 0xbb && u[i + 2] == 0xbf) throw Unsupported();        // BOM
      if (c == 0xe0 && u[i + 1] < 0xa0) throw Unsupported();                             // overlong
      if (c == 0xf0 && u[i + 1] < 0x90) throw Unsupported();
      if (c == 0xed && u[i + 1] >= 0xa0) throw Unsupported();                            // surrogates
      if (c == 0xf4 && u[i + 1] >= 0x90) throw Unsupported();
      i += len;
    }
    return tabs;
  }

  std::size_t Tabs(std::size_t from, std::size_t to) const {
    if (tabs_ == 0) return 0;
    return static_cast<std::size_t>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(from), s_.begin() + static_cast<std::ptrdiff_t>(to), '\t'));
  }
  std::size_t Len(std::size_t l) const { return ends_[l] - starts_[l]; }
  // The byte at column `col` of line `l`, '\n' past its end.
  char At(std::size_t l, std::size_t col) const { return col < Len(l) ? s_[starts_[l] + col] : '\n'; }
  int Indent(std::size_t l) const {
    std::size_t c = 0;
    while (At(l, c) == ' ') ++c;
    return static_cast<int>(c);
  }
  YAML::Mark MarkAt(std::size_t l, std::size_t col) const {
    YAML::Mark m;
    m.pos = static_cast<int>(starts_[l] + col);
    m.line = static_cast<int>(l);
    m.column = static_cast<int>(col);
    return m;
  }
  bool BlankOrComment(std::size_t l) const {
    char c = At(l, static_cast<std::size_t>(Indent(l)));
    return c == '\n' || c == '#';
  }
  void SkipBlank() {
    while (li_ < starts_.size() && BlankOrComment(li_)) ++li_;
  }
  static bool Space(char c) { return c == ' ' || c == '\n'; }
  bool DashAt(std::size_t l, std::size_t col) const { return At(l, col) == '-' && Space(At(l, col + 1)); }
  // The rest of line `l` from `col` is blanks, then optionally a comment after a blank.
  void RestBlank(std::size_t l, std::size_t col) const {
    std::size_t c = col;
    while (At(l, c) == ' ') ++c;
    if (At(l, c) == '\n') return;
    if (At(l, c) == '#' && c > col) return;
    throw Unsupported();
  }

  // A node that starts at column `col` of line li_, in a block whose innermost collection is at
  // column `top` (-1: none).
  void BlockNode(std::size_t col, int top) {
    const Nesting nested(&depth_);
    if (DashAt(li_, col)) return BlockSequence(col, false);
    if (KeyAt(li_, col)) return BlockMap(col);
    InlineNode(col, top);
  }

  // Whether a simple key (a one-line plain or quoted scalar, then ':' and a blank) starts at `col`;
  // `value` gets the column after its ':'.
  bool KeyAt(std::size_t l, std::size_t col, std::size_t* value = nullptr, std::string* key = nullptr,
             bool* plain = nullptr) const {
    char c = At(l, col);
    std::size_t e;
    if (c == '\'' || c == '"') {
      std::string text;
      if (!QuotedOnLine(l, col, &e, key ? &text : nullptr)) return false;
      if (At(l, e) != ':' || !Space(At(l, e + 1))) return false;
      if (key) *key = std::move(text);
      if (plain) *plain = false;
    } else {
      if (!PlainStart(l, col)) return false;
      bool colon;
      e = PlainEnd(l, col, &colon);
      if (!colon) return false;
      std::size_t t = e;
      while (t > col && At(l, t - 1) == ' ') --t;
      if (key) key->assign(s_, starts_[l] + col, t - col);
      if (plain) *plain = true;
    }
    if (e - col > 1000) throw Unsupported();  // yaml-cpp's simple keys end at 1024 characters
    if (value) *value = e + 1;
    return true;
  }

  // Where a plain scalar starting at `col` of line `l` ends (block context): at the line's end, at a
  // comment (" #"), or at a ':' followed by a blank (*colon set: it was a key).
  std::size_t PlainEnd(std::size_t l, std::size_t col, bool* colon) const {
    const char* b = s_.data() + starts_[l];
    const std::size_t n = Len(l);
    *colon = false;
    // The first ':' followed by a blank or the line's end, and the first '#' after a blank before it.
    std::size_t key_end = n;
    for (std::size_t e = col; e < n;) {
      const void* found = std::memchr(b + e, ':', n - e);
      if (found == nullptr) break;
      e = static_cast<std::size_t>(static_cast<const char*>(found) - b);
      if (e + 1 == n || b[e + 1] == ' ') {
        key_end = e;
        break;
      }
      ++e;
    }
    for (std::size_t e = col; e < key_end;) {
      const void* found = std::memchr(b + e, '#', key_end - e);
      if (found == nullptr) break;
      e = static_cast<std::size_t>(static_cast<const char*>(found) - b);
      if (e > 0 && b[e - 1] == ' ') return e;
      ++e;
    }
    *colon = key_end < n;
    return key_end;
  }

  // A plain scalar may start here (block context).
  bool PlainStart(std::size_t l, std::size_t col) const {
    char c = At(l, col);
    if (c == '\n' || c == ' ') return false;
    if (std::string_view(",[]{}#&*!|>'\"%@`?:").find(c) != std::string_view::npos) return false;
    if (c == '-' && Space(At(l, col + 1))) return false;
    return true;
  }

  void EmitScalar(const YAML::Mark& mark, std::string value, bool plain) {
    // A plain `~`, `null`, `Null` or `NULL` (compared only at their lengths: most scalars are neither).
    const bool null = value.size() == 1 ? value[0] == '~'
                      : value.size() == 4 && (value == "null" || value == "Null" || value == "NULL");
    if (plain && null) {
      builder_.Null(mark);
    } else {
      builder_.Scalar(mark, std::move(value));
    }
  }

  void BlockMap(std::size_t col) {
    builder_.StartMap(MarkAt(li_, col));
    for (;;) {
      std::size_t v;
      std::string key;
      bool plain;
      if (!KeyAt(li_, col, &v, &key, &plain)) throw Unsupported();
      if (!plain) tabs_read_ += Tabs(starts_[li_] + col, starts_[li_] + v);
      EmitScalar(MarkAt(li_, col), std::move(key), plain);
      while (At(li_, v) == ' ') ++v;
      if (At(li_, v) == '\n' || At(li_, v) == '#') {  // the value on the lines below
        ++li_;
        SkipBlank();
        if (li_ >= starts_.size()) throw Unsupported();  // an empty value
        std::size_t ind = static_cast<std::size_t>(Indent(li_));
        if (ind > col) {
          BlockNode(ind, static_cast<int>(col));
        } else if (ind == col && DashAt(li_, col)) {
          BlockSequence(col, true);
        } else {
          throw Unsupported();  // an empty value
        }
      } else {
        // "- x" or "k: v" here is yaml-cpp's; InlineNode refuses the second itself (a ':' and a
        // blank after a plain scalar, anything but a comment after a quoted or flow one).
        if (DashAt(li_, v)) throw Unsupported();
        InlineNode(v, static_cast<int>(col));
      }
      SkipBlank();
      if (li_ >= starts_.size()) break;
      std::size_t ind = static_cast<std::size_t>(Indent(li_));
      if (ind < col) break;
      if (ind > col || DashAt(li_, col)) throw Unsupported();
    }
    builder_.End();
  }

  // `indentless`: under a key, at the key's column.
  void BlockSequence(std::size_t col, bool indentless) {
    builder_.StartSequence(MarkAt(li_, col));
    for (;;) {
      std::size_t v = col + 1;
      while (At(li_, v) == ' ') ++v;
      if (At(li_, v) == '\n' || At(li_, v) == '#') {
        ++li_;
        SkipBlank();
        if (li_ >= starts_.size()) throw Unsupported();
        std::size_t ind = static_cast<std::size_t>(Indent(li_));
        if (ind <= col) throw Unsupported();  // an empty item
        BlockNode(ind, static_cast<int>(col));
      } else if (DashAt(li_, v)) {
        throw Unsupported();  // a sequence in a sequence's item line
      } else if (KeyAt(li_, v)) {
        BlockMap(v);
      } else {
        InlineNode(v, static_cast<int>(col));
      }
      SkipBlank();
      if (li_ >= starts_.size()) break;
      std::size_t ind = static_cast<std::size_t>(Indent(li_));
      if (ind < col) break;
      if (ind == col && DashAt(li_, col)) continue;
      if (ind == col && indentless) break;
      throw Unsupported();
    }
    builder_.End();
  }

  // A scalar or flow collection at column `col` of line li_ (not a key); leaves li_ at the first line
  // after it.
  void InlineNode(std::size_t col, int top) {
    char c = At(li_, col);
    if (c == '|' || c == '>') return BlockScalar(col, top);
    if (c == '\'' || c == '"') {
      std::string text;
      YAML::Mark mark = MarkAt(li_, col);
      std::size_t l = li_, e;
      // A quoted scalar closed on its line reads the same either way (the final clip changes nothing).
      if (!QuotedOnLine(l, col, &e, &text)) QuotedScalar(&l, col, &e, &text);
      RestBlank(l, e);
      tabs_read_ += Tabs(starts_[li_] + col, starts_[l] + e);
      builder_.Scalar(mark, std::move(text));
      li_ = l + 1;
      return;
    }
    if (c == '[' || c == '{') {
      std::size_t e = col;
      Flow(&e);
      RestBlank(li_, e);
      ++li_;
      return;
    }
    if (!PlainStart(li_, col)) throw Unsupported();
    bool colon;
    std::size_t e = PlainEnd(li_, col, &colon);
    if (colon) throw Unsupported();
    std::size_t t = e;
    while (t > col && At(li_, t - 1) == ' ') --t;
    YAML::Mark mark = MarkAt(li_, col);
    std::string value(s_, starts_[li_] + col, t - col);
    // yaml-cpp folds the lines below into a plain scalar while they are indented past `top` and are
    // not comments: such a scalar is its.
    std::size_t l = li_ + 1;
    while (l < starts_.size() && At(l, static_cast<std::size_t>(Indent(l))) == '\n') ++l;
    if (l < starts_.size() && Indent(l) > top && At(l, static_cast<std::size_t>(Indent(l))) != '#') throw Unsupported();
    if (top < 0) throw Unsupported();
    EmitScalar(mark, std::move(value), true);
    ++li_;
  }

  // A quoted scalar opening at (l, col) and closing on the same line: its text and the column after
  // the closing quote; false if it does not close there.
  bool QuotedOnLine(std::size_t l, std::size_t col, std::size_t* end, std::string* text) const {
    // `text` may be null: then only whether and where it closes (its escapes are checked all the same).
    const char* b = s_.data() + starts_[l];
    const std::size_t n = Len(l);
    const char q = b[col];
    std::string out;
    std::size_t run = col + 1;  // the start of the text not copied yet
    for (std::size_t c = run; c < n;) {
      // The next quote; in double quotes, the next backslash if it comes first.
      const void* quote = std::memchr(b + c, q, n - c);
      std::size_t stop = quote ? static_cast<std::size_t>(static_cast<const char*>(quote) - b) : n;
      if (q == '"') {
        if (const void* slash = std::memchr(b + c, '\\', stop - c)) stop = static_cast<std::size_t>(static_cast<const char*>(slash) - b);
      }
      if (stop == n) return false;
      c = stop;
      if (text) out.append(b + run, c - run);
      if (b[c] == q) {
        if (q == '\'' && c + 1 < n && b[c + 1] == '\'') {  // '' in single quotes
          if (text) out += '\'';
          run = c += 2;
          continue;
        }
        *end = c + 1;
        if (text) *text = std::move(out);
        return true;
      }
      const char escaped = Escape(c + 1 < n ? b[c + 1] : '\n');  // a backslash in double quotes
      if (text) out += escaped;
      run = c += 2;
    }
    return false;
  }

  static char Escape(char c) {
    switch (c) {
      case '\\': return '\\';
      case '"': return '"';
      case '/': return '/';
      case '\'': return '\'';
      case ' ': return ' ';
      case 'n': return '\n';
      case 't': return '\t';
      default: throw Unsupported();  // other escapes, and a line break escaped, are yaml-cpp's
    }
  }

  // A quoted scalar from (*l, col), over lines if it goes on: yaml-cpp's scanning of flow scalars
  // (ScanScalar with flow folding: trailing blanks before a break dropped, a break folded to a space
  // or, before an empty line, kept; leading blanks of a line dropped; a final clip of line breaks).
  // *l and *end get where the closing quote ends.
  void QuotedScalar(std::size_t* l, std::size_t col, std::size_t* end, std::string* text) const {
    const char q = At(*l, col);
    std::string out;
    std::size_t last_escaped = std::string::npos;
    bool empty_line = false;
    std::size_t c = col + 1;
    for (;;) {
      std::size_t last_non_blank = out.size();
      for (;; ++c) {
        char d = At(*l, c);
        if (d == '\n') break;
        if (d == q && !(q == '\'' && At(*l, c + 1) == '\'')) {
          *end = c + 1;
          Clip(&out, last_escaped);
          *text = std::move(out);
          return;
        }
        if ((q == '\'' && d == '\'') || (q == '"' && d == '\\')) {
          if (q == '"' && At(*l, c + 1) == '\n') throw Unsupported();
          out += q == '\'' ? '\'' : Escape(At(*l, c + 1));
          ++c;
          last_non_blank = last_escaped = out.size();
          continue;
        }
        out += d;
        if (d != ' ' && d != '\t') last_non_blank = out.size();
      }
      if (*l + 1 >= starts_.size()) throw Unsupported();  // no closing quote: yaml-cpp's error
      out.erase(last_non_blank);
      ++*l;
      c = 0;
      while (At(*l, c) == ' ' || At(*l, c) == '\t') ++c;
      bool next_empty = At(*l, c) == '\n';
      if (next_empty) {
        out += '\n';
      } else if (!empty_line) {
        out += ' ';
      }
      empty_line = next_empty;
    }
  }

  // yaml-cpp's CLIP chomping of a scanned scalar.
  static void Clip(std::string* out, std::size_t last_escaped) {
    std::size_t pos = out->find_last_not_of('\n');
    if (last_escaped != std::string::npos && (pos < last_escaped || pos == std::string::npos)) pos = last_escaped;
    if (pos == std::string::npos) {
      out->clear();
    } else if (pos + 1 < out->size()) {
      out->erase(pos + 2);
    }
  }

  // A flow collection on line li_ from column *c; *c gets the column after it.
  void Flow(std::size_t* c) {
    const Nesting nested(&depth_);
    const bool map = At(li_, *c) == '{';
    const char close = map ? '}' : ']';
    if (map) builder_.StartMap(MarkAt(li_, *c)); else builder_.StartSequence(MarkAt(li_, *c));
    ++*c;
    SkipSpaces(c);
    if (At(li_, *c) == close) {
      ++*c;
      builder_.End();
      return;
    }
    for (;;) {
      FlowNode(c, map);
      if (map) {
        if (At(li_, *c) != ':' || At(li_, *c + 1) != ' ') throw Unsupported();
        *c += 2;
        SkipSpaces(c);
        FlowNode(c, false);
      }
      SkipSpaces(c);
      char d = At(li_, *c);
      ++*c;
      if (d == close) break;
      if (d != ',') throw Unsupported();
      SkipSpaces(c);
      if (At(li_, *c) == close) throw Unsupported();  // a trailing comma
    }
    builder_.End();
  }

  void SkipSpaces(std::size_t* c) const {
    while (At(li_, *c) == ' ') ++*c;
  }

  // A scalar or collection inside a flow collection; `key`: a flow map's key, ended by ": ".
  void FlowNode(std::size_t* c, bool key) {
    char d = At(li_, *c);
    if (d == '[' || d == '{') {
      if (key) throw Unsupported();
      return Flow(c);
    }
    YAML::Mark mark = MarkAt(li_, *c);
    if (d == '\'' || d == '"') {
      std::string text;
      std::size_t e;
      if (!QuotedOnLine(li_, *c, &e, &text)) throw Unsupported();
      tabs_read_ += Tabs(starts_[li_] + *c, starts_[li_] + e);
      *c = e;
      builder_.Scalar(mark, std::move(text));
      return;
    }
    if (std::string_view(",[]{}#&*!|>%@`?:").find(d) != std::string_view::npos || Space(d) ||
        (d == '-' && Space(At(li_, *c + 1)))) {
      throw Unsupported();
    }
    std::size_t e = *c;
    for (;; ++e) {
      char x = At(li_, e);
      if (x == ',' || x == ']' || x == '}') break;
      if (x == ':' && key && At(li_, e + 1) == ' ') break;
      if (x == '\n' || x == ':' || x == '[' || x == '{' || x == '?' || (x == '#' && At(li_, e - 1) == ' ')) throw Unsupported();
    }
    std::size_t t = e;
    while (t > *c && At(li_, t - 1) == ' ') --t;
    std::string value(s_, starts_[li_] + *c, t - *c);
    *c = e;
    EmitScalar(mark, std::move(value), true);
  }

  // A literal or folded block scalar whose indicator is at column `col` of line li_: yaml-cpp's block
  // scalar scanning (ScanBlockScalar, then ScanScalar without escapes or leading-blank eating),
  // step for step. Leaves li_ at the line it stopped on.
  void BlockScalar(std::size_t col, int top) {
    const YAML::Mark mark = MarkAt(li_, col);
    const bool fold = At(li_, col) == '>';
    enum { kClip, kStrip, kKeep } chomp = kClip;
    int indent = 1;
    bool detect = true;
    std::size_t c = col + 1;
    for (int k = 0; k < 2; ++k) {
      char d = At(li_, c);
      if ((d == '+' || d == '-') && chomp == kClip) {
        chomp = d == '+' ? kKeep : kStrip;
        ++c;
      } else if (d >= '1' && d <= '9' && detect) {
        indent = d - '0';
        detect = false;
        ++c;
      } else {
        break;
      }
    }
    RestBlank(li_, c);
    if (li_ + 1 >= starts_.size() || top < 0) throw Unsupported();
    indent += top;

    std::string out;
    bool found_non_empty = false, past_opening_break = false, empty_line = false, more_indented = false;
    int folded_newlines = 0;
    bool folded_started_more_indented = false;
    std::size_t l = li_;
    std::size_t p = Len(l);  // column on line l; the header line's rest is not content
    bool at_eof = false;
    for (;;) {
      // Phase 1: the rest of the line.
      if (p < Len(l)) {
        found_non_empty = past_opening_break = true;
        tabs_read_ += Tabs(starts_[l] + p, ends_[l]);
        out.append(s_, starts_[l] + p, Len(l) - p);
        p = Len(l);
      }
      if (l + 1 >= starts_.size() && ends_[l] == s_.size()) {  // no line break left: end of input
        at_eof = true;
        break;
      }
      // Phase 2: the line break; phase 3: the indentation.
      ++l;
      p = 0;
      bool eof = l >= starts_.size();  // after a final newline
      if (!eof) {
        while (At(l, p) == ' ' && (static_cast<int>(p) < indent || (detect && !found_non_empty))) ++p;
      }
      if (detect && !found_non_empty) indent = std::max(indent, static_cast<int>(p));
      if (!eof && At(l, p) == '\t' && static_cast<int>(p) < indent) throw Unsupported();  // yaml-cpp's error
      bool next_empty = !eof && At(l, p) == '\n' && p == Len(l) && ends_[l] < s_.size();
      bool next_more_indented = !eof && (At(l, p) == ' ' || At(l, p) == '\t');
      if (fold && folded_newlines == 0 && next_empty) folded_started_more_indented = more_indented;
      if (past_opening_break) {
        if (!fold) {
          out += '\n';
        } else {
          if (!empty_line && !next_empty && !more_indented && !next_more_indented && static_cast<int>(p) >= indent) {
            out += ' ';
          } else if (next_empty) {
            ++folded_newlines;
          } else {
            out += '\n';
          }
          if (!next_empty && folded_newlines > 0) {
            out.append(static_cast<std::size_t>(folded_newlines - 1), '\n');
            if (folded_started_more_indented || next_more_indented || !found_non_empty) out += '\n';
            folded_newlines = 0;
          }
        }
      }
      empty_line = next_empty;
      more_indented = next_more_indented;
      past_opening_break = true;
      if (eof) {
        at_eof = true;
        break;
      }
      if (!empty_line && static_cast<int>(p) < indent) break;
    }
    if (chomp != kKeep) {
      std::size_t pos = out.find_last_not_of('\n');
      if (pos == std::string::npos) {
        out.clear();
      } else if (chomp == kClip && pos + 1 < out.size()) {
        out.erase(pos + 2);
      } else if (chomp == kStrip) {
        out.erase(pos + 1);
      }
    }
    builder_.Scalar(mark, std::move(out));
    li_ = at_eof ? starts_.size() : l;
  }

  const std::string& s_;
  YamlTreeBuilder builder_;
  std::vector<std::size_t> starts_, ends_;
  std::size_t tabs_ = 0;       // tabs in the text
  std::size_t tabs_read_ = 0;  // tabs read as text
  std::size_t li_ = 0;
  int depth_ = 0;  // collections open (Nesting)
};

}  // namespace

bool ReadYamlSubset(const std::string& text, YamlTree* tree) {
  // About one node per 40 bytes of a rule file.
  tree->items.reserve(text.size() / 32);
  tree->children.reserve(text.size() / 32);
  tree->scalars.reserve(text.size() / 48);
  try {
    SubsetReader(text, tree).Read();
    return true;
  } catch (const Unsupported&) {
    return false;
  }
}

void ParseYamlWithYamlCpp(const std::string& text, YamlTree* tree) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  TreeEvents events(tree);
  parser.HandleNextDocument(events);
}

void LoadYamlTree(const std::string& text, YamlTree* tree) {
  if (ReadYamlSubset(text, tree)) return;
  ParseYamlWithYamlCpp(text, tree);
}

namespace {

// Note: [Numbers in the C locale]
// yaml-cpp's convert<T>::decode reads a number with a std::stringstream, which takes the process's
// global C++ locale: once an embedder called std::locale::global with a locale whose decimal point is
// a comma (a GUI toolkit, boost.locale, std::locale("") under de_DE), every `confidence: 0.9` failed
// to read and a load kept no rule at all, and a thread setting the locale while another loaded
// changed that load halfway. The same reading, with the stream's locale fixed to "C": a rule file
// reads the same in every process (tests/concurrent_load_test.cc).
template <typename T>
bool DecodeNumber(const std::string& input, T* out) {
  std::stringstream stream(input);
  stream.imbue(std::locale::classic());
  stream.unsetf(std::ios::dec);
  if (YAML::conversion::ConvertStreamTo(stream, *out)) return true;
  if (std::numeric_limits<T>::has_infinity) {
    if (YAML::conversion::IsInfinity(input)) {
      *out = std::numeric_limits<T>::infinity();
      return true;
    }
    if (YAML::conversion::IsNegativeInfinity(input)) {
      *out = -std::numeric_limits<T>::infinity();
      return true;
    }
  }
  if (std::numeric_limits<T>::has_quiet_NaN && YAML::conversion::IsNaN(input)) {
    *out = std::numeric_limits<T>::quiet_NaN();
    return true;
  }
  return false;
}

}  // namespace

bool DecodeYaml(const YamlNode& node, double* out) {
  return node.IsScalar() && DecodeNumber(node.Scalar(), out);
}

bool DecodeYaml(const YamlNode& node, int* out) {
  return node.IsScalar() && DecodeNumber(node.Scalar(), out);
}

}  // namespace triage
