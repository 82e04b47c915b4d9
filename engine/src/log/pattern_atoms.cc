#include "log/pattern_atoms.h"
#include "triage/locale_free.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <utility>

namespace triage {
namespace {

// Note: [Literal fast path]
// Loading rules with no cache asked RE2's FilteredRE2, for each pattern alone, which literals every
// match contains (RequiredLiterals in line_scanner.cc): ~150 K instructions a pattern for the
// prefilter analysis alone (RE2 simplifies the parsed regexp, walks it building string sets and
// AND/OR nodes, then numbers them in a PrefilterTree), ~100 M of a no-cache start. Most patterns are
// literal runs, classes, groups, `*` `+` `?` and simple alternations. This file reads that subset of
// the syntax and computes what FilteredRE2 computes, step for step (RE2 2022-06-01, the version the
// engine builds against: re2/parse.cc, simplify.cc, prefilter.cc and prefilter_tree.cc):
// - the tree RE2's parser builds: a non-capturing group's concatenation is spliced into the
//   enclosing one (its first item not joined to a literal before it), a capture is a node of its own;
//   a class of one rune is that literal, [Aa] the literal a folding case; under (?i) a character is
//   a literal folding case (a letter held in lower case), k and s classes of their three-rune fold
//   orbits, and classes are folded before they are negated; `.` is the class [^\n] (any character
//   under (?s)); an alternation's branches factored as FactorAlternation does (common leading literal
//   strings, compared with their fold flag, then runs of one-character branches merged into a class),
//   read where its second round, which factors leading classes and empty-width ops, finds nothing;
// - RE2's simplifier's merge of `x*` with a literal string starting with one x (`x+` and the rest);
// - the prefilter Info of each node: a literal or a class of at most 10 runes is an exact set of
//   lower-cased strings, a larger class matches anything, an empty-width assertion is the set {""},
//   `*` and `?` match anything, `+` keeps what its operand requires; a concatenation joins runs of
//   exact children by cross product while the product stays at most 16 strings, ANDing the rest; an
//   alternation unites exact sets, else ORs; AND/OR nodes are combined with RE2's canonical
//   ordering, which decides the order of the atoms;
// - the PrefilterTree: atoms shorter than 3 dropped (an AND keeps the rest, an OR with one is
//   dropped whole), the nodes numbered from the last to the first (equal ones sharing a number) and
//   the atoms listed in that order; a set of atoms passes when the root is true with those atoms.
// What it does not read it hands back (nullopt) and the caller asks RE2: counted repeats `{n,m}`,
// bytes outside printable ASCII, octal or \p escapes, POSIX classes, nested quantifiers, quantified
// empty groups or assertions, the other merges of a quantified character with the same character or
// class after it, alternations whose second factoring round would act (neighbouring branches
// starting with equal classes, dots or empty-width ops) or with a branch that is itself an
// alternation or a lone dot, classes holding runes outside ASCII under (?i), and a prefilter node
// with more than nine parents (the tree's pruning heuristic). 894 of the 908 bundled patterns are read
// (2026-11-29, 413 rules). tests/pattern_atoms_test.cc compares it with FilteredRE2 on every bundled pattern,
// crafted ones and random ones (of the subset's syntax, and weighted towards (?i)).

constexpr int kRuneMax = 0x10FFFF;
constexpr size_t kMinAtomLen = 3;      // RequiredLiterals' FilteredRE2(kMinAtomLen)
constexpr size_t kMaxExactProduct = 16;  // RE2's bound on a concatenation's exact cross product
constexpr size_t kMaxExactClass = 10;    // RE2's largest class read as an exact set

using Ranges = std::vector<std::pair<int, int>>;  // sorted, disjoint, not touching

void AddRange(Ranges* r, int lo, int hi) {
  if (r->empty() || lo > r->back().second + 1) {  // past the last range, not touching it: the usual order
    r->emplace_back(lo, hi);
    return;
  }
  Ranges out;
  bool placed = false;
  for (const auto& [a, b] : *r) {
    if (b + 1 < lo) {
      out.emplace_back(a, b);
    } else if (hi + 1 < a) {
      if (!placed) out.emplace_back(lo, hi);
      placed = true;
      out.emplace_back(a, b);
    } else {
      lo = std::min(lo, a);
      hi = std::max(hi, b);
    }
  }
  if (!placed) out.emplace_back(lo, hi);
  std::sort(out.begin(), out.end());
  *r = std::move(out);
}

Ranges Negate(const Ranges& r) {
  Ranges out;
  int next = 0;
  for (const auto& [a, b] : r) {
    if (a > next) out.emplace_back(next, a - 1);
    next = b + 1;
  }
  if (next <= kRuneMax) out.emplace_back(next, kRuneMax);
  return out;
}

long RuneCount(const Ranges& r) {
  long n = 0;
  for (const auto& [a, b] : r) n += b - a + 1;
  return n;
}

// RE2's Perl classes \d \s \w (perl_groups.cc); upper case negates.
bool PerlClass(char c, Ranges* r) {
  Ranges g;
  switch (AsciiLower(static_cast<unsigned char>(c))) {
    case 'd': g = {{'0', '9'}}; break;
    case 's': g = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}}; break;
    case 'w': g = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; break;
    default: return false;
  }
  if (IsAsciiUpper(c)) g = Negate(g);
  for (const auto& [a, b] : g) AddRange(r, a, b);
  return true;
}

// RE2's case folding of ranges of ASCII runes (AddRangeFlags with FoldCase): each letter's other
// case, and for k and s the KELVIN SIGN and LONG S of their fold orbits. False when a range holds a
// rune outside ASCII, whose orbits are not known here.
bool FoldAscii(Ranges* r) {
  Ranges folded = *r;
  for (const auto& [lo, hi] : *r) {
    if (hi >= 0x80) return false;
    for (int c = lo; c <= hi; ++c) {
      if (!IsAsciiAlpha(c)) continue;
      const int other = IsAsciiUpper(c) ? c + ('a' - 'A') : c - ('a' - 'A');
      AddRange(&folded, other, other);
      const int lower = AsciiLower(c);
      if (lower == 'k') AddRange(&folded, 0x212A, 0x212A);
      if (lower == 's') AddRange(&folded, 0x17F, 0x17F);
    }
  }
  *r = std::move(folded);
  return true;
}

// RE2's prefilter lower-cases each rune (ToLowerRune): ASCII, and the two runes outside it that fold
// into ASCII, KELVIN SIGN and LONG S; -1 for the others (not read here).
int LowerRune(int r) {
  if (r < 0x80) return AsciiLower(r);
  if (r == 0x212A) return 'k';
  if (r == 0x17F) return 's';
  return -1;
}

struct Node {
  enum Kind {
    kChar, kLiteral, kClass, kAnyChar, kEmptyWidth, kEmptyMatch, kConcat, kCapture, kStar, kPlus, kQuest,
    kAlternate,  // as RE2's parser leaves it (Factor)
  };
  Kind kind = kEmptyMatch;
  int rune = 0;      // kChar
  std::string text;  // kLiteral: a run of characters (ASCII), each a kChar as RE2 has it
  bool fold = false;  // kChar, kLiteral: RE2's FoldCase flag (a letter is then held in lower case)
  Ranges ranges;  // kClass
  std::vector<Node> subs;

  bool Repeat() const { return kind == kStar || kind == kPlus || kind == kQuest; }
  bool OneChar() const { return kind == kChar || kind == kClass || kind == kAnyChar; }
};

Node Collapse(std::vector<Node> items) {
  if (items.empty()) return Node{};
  if (items.size() == 1) return std::move(items[0]);
  Node c;
  c.kind = Node::kConcat;
  c.subs = std::move(items);
  return c;
}

// The flags in force where a pattern is read: (?s) and (?i).
struct Mode {
  bool dot_nl = false;
  bool fold = false;
};

// Reads the subset of RE2's syntax described in the note into RE2's tree shape; false when the
// pattern leaves the subset.
class SubsetParser {
 public:
  explicit SubsetParser(const std::string& s) : s_(s) {}

  bool Parse(Node* root) {
    std::vector<std::vector<Node>> branches;
    Mode mode;
    if (!Branches(&branches, mode) || i_ != s_.size()) return false;
    if (branches.size() == 1) {
      *root = Collapse(std::move(branches[0]));
      return true;
    }
    return Alternation(std::move(branches), root);
  }

 private:
  bool At(char c) const { return i_ < s_.size() && s_[i_] == c; }
  static bool Printable(char c) { return c >= 0x20 && c <= 0x7e; }
  // A printable character that stands for itself outside a class.
  // (A switch, not a search of the metacharacters' string: it is asked of every character of a pattern.)
  static bool Plain(char c) {
    switch (c) {
      case '\\': case '.': case '+': case '*': case '?': case '(': case ')': case '|':
      case '[': case ']': case '{': case '}': case '^': case '$':
        return false;
      default:
        return Printable(c);
    }
  }
  static bool Repeater(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

  // The branches of an alternation, each the items of one concatenation, up to a ')' or the end (not
  // consumed). Flags set in a branch hold to the end of the group, as in RE2.
  bool Branches(std::vector<std::vector<Node>>* branches, Mode& mode) {
    for (;;) {
      branches->emplace_back();
      if (!Sequence(&branches->back(), mode)) return false;
      if (!At('|')) return true;
      ++i_;
    }
  }

  // An alternation as RE2's parser leaves it: its branches factored (Factor), one branch left being that
  // branch. False where RE2 would first flatten a branch that is itself an alternation (a non-capturing
  // group's) into this one, or let a `.` branch swallow its neighbours (DoVerticalBar): not read here.
  static bool Alternation(std::vector<std::vector<Node>> branches, Node* out) {
    std::vector<Node> subs;
    for (std::vector<Node>& b : branches) {
      if (b.size() == 1 && (b[0].kind == Node::kAlternate || b[0].kind == Node::kAnyChar)) return false;
      subs.push_back(Collapse(std::move(b)));
    }
    if (!Factor(&subs)) return false;
    if (subs.size() == 1) {
      *out = std::move(subs[0]);
    } else {
      out->kind = Node::kAlternate;
      out->subs = std::move(subs);
    }
    return true;
  }

  // RE2's FactorAlternation (parse.cc), round by round, on an alternation's branches:
  // 1. each run of neighbouring branches starting with a common literal string (RE2 compares runes,
  //    case included, and whether they fold case) becomes that prefix followed by the alternation of
  //    what is left of each (an empty rest is an empty match), itself factored the same way; one rest
  //    left is that rest;
  // 2. neighbouring branches starting with the same empty-width op, class or dot would be factored
  //    too: not read here (judged loosely: any two empty-width ops, equal classes);
  // 3. each run of neighbouring branches that are one character or class becomes one class.
  // False where the result is not known here.
  static bool Factor(std::vector<Node>* subs) {
    std::vector<Node> out;
    for (size_t i = 0; i < subs->size();) {
      const Node* lead = LeadingString((*subs)[i]);
      size_t common = lead ? lead->text.size() : 0, j = i + 1;
      for (; lead && j < subs->size(); ++j) {
        const Node* next = LeadingString((*subs)[j]);
        if (!next || next->fold != lead->fold) break;
        size_t same = 0;
        while (same < common && same < next->text.size() && lead->text[same] == next->text[same]) ++same;
        if (same == 0) break;
        common = same;
      }
      if (j - i < 2) {
        out.push_back(std::move((*subs)[i++]));
        continue;
      }
      Node prefix;
      prefix.kind = Node::kLiteral;
      prefix.text = lead->text.substr(0, common);
      prefix.fold = lead->fold;
      std::vector<Node> rests;
      for (; i < j; ++i) {
        if (!RemoveLeadingString(&(*subs)[i], common)) return false;
        rests.push_back(std::move((*subs)[i]));
      }
      if (!Factor(&rests)) return false;
      Node concat;
      concat.kind = Node::kConcat;
      concat.subs.push_back(std::move(prefix));
      if (rests.size() == 1) {
        concat.subs.push_back(std::move(rests[0]));
      } else {
        concat.subs.emplace_back();
        concat.subs.back().kind = Node::kAlternate;
        concat.subs.back().subs = std::move(rests);
      }
      out.push_back(std::move(concat));
    }
    for (size_t i = 1; i < out.size(); ++i) {
      if (MayFactorFirst(Leading(out[i - 1]), Leading(out[i]))) return false;
    }
    subs->clear();
    for (size_t i = 0; i < out.size();) {
      size_t j = i;
      while (j < out.size() && OneCharBranch(out[j])) ++j;
      if (j - i < 2) {
        subs->push_back(std::move(out[i]));
        ++i;
        continue;
      }
      Node merged;
      merged.kind = Node::kClass;
      for (; i < j; ++i) {
        const Node& b = out[i];
        if (b.kind == Node::kLiteral) {  // RE2 adds a literal folding case with every case of it
          Ranges r{{static_cast<unsigned char>(b.text[0]), static_cast<unsigned char>(b.text[0])}};
          if (b.fold) FoldAscii(&r);
          for (const auto& [lo, hi] : r) AddRange(&merged.ranges, lo, hi);
          continue;
        }
        for (const auto& [lo, hi] : b.ranges) AddRange(&merged.ranges, lo, hi);
      }
      subs->push_back(std::move(merged));
    }
    return true;
  }

  // RE2's Regexp::LeadingString: the literal string a branch starts with (its text and whether it
  // folds case), or null.
  static const Node* LeadingString(const Node& n) {
    const Node* first = &n;
    while (first->kind == Node::kConcat) first = &first->subs[0];
    return first->kind == Node::kLiteral ? first : nullptr;
  }

  // RE2's Regexp::RemoveLeadingString: the first n characters of the branch's leading string dropped;
  // a concatenation left with one item is that item. False for a nested concatenation (not met here).
  static bool RemoveLeadingString(Node* n, size_t count) {
    Node* lit = n->kind == Node::kConcat ? &n->subs[0] : n;
    if (lit->kind != Node::kLiteral) return false;
    lit->text.erase(0, count);
    if (!lit->text.empty()) return true;
    if (lit == n) {
      *n = Node{};  // an empty match
      return true;
    }
    n->subs.erase(n->subs.begin());
    if (n->subs.size() == 1) {
      Node only = std::move(n->subs[0]);
      *n = std::move(only);
    }
    return true;
  }

  // RE2's Regexp::LeadingRegexp: a concatenation's first item, another node itself; null for an empty
  // match.
  static const Node* Leading(const Node& n) {
    if (n.kind == Node::kEmptyMatch) return nullptr;
    if (n.kind != Node::kConcat) return &n;
    return n.subs[0].kind == Node::kEmptyMatch ? nullptr : &n.subs[0];
  }

  // Whether RE2's second round could factor two neighbouring branches starting with a and b: equal
  // leading empty-width ops (any two, loosely), dots or classes.
  static bool MayFactorFirst(const Node* a, const Node* b) {
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == Node::kEmptyWidth || a->kind == Node::kAnyChar) return true;
    return a->kind == Node::kClass && a->ranges == b->ranges;
  }

  static bool OneCharBranch(const Node& b) {
    return (b.kind == Node::kLiteral && b.text.size() == 1) || b.kind == Node::kClass;
  }

  // The items of one concatenation, up to a ')', a '|' or the end (not consumed).
  bool Sequence(std::vector<Node>* items, Mode& mode) {
    while (i_ < s_.size() && s_[i_] != ')' && s_[i_] != '|') {
      // The common case first: a run of plain characters, none of them repeated (under (?i), none
      // of them k or s, which fold to classes).
      size_t run = i_;
      while (run < s_.size() && Plain(s_[run]) && !(run + 1 < s_.size() && Repeater(s_[run + 1])) &&
             !(mode.fold && (AsciiLower(static_cast<unsigned char>(s_[run])) == 'k' ||
                             AsciiLower(static_cast<unsigned char>(s_[run])) == 's'))) {
        ++run;
      }
      if (run > i_) {
        if (items->empty() || items->back().kind != Node::kLiteral || items->back().fold != mode.fold) {
          items->emplace_back();
          items->back().kind = Node::kLiteral;
          items->back().fold = mode.fold;
        }
        const size_t from = items->back().text.size();
        items->back().text.append(s_, i_, run - i_);
        if (mode.fold) {
          for (size_t k = from; k < items->back().text.size(); ++k) {
            items->back().text[k] = static_cast<char>(AsciiLower(static_cast<unsigned char>(items->back().text[k])));
          }
        }
        i_ = run;
        continue;
      }
      Node atom;
      std::vector<Node> group;
      bool is_group = false;
      const char c = s_[i_];
      switch (c) {
        case '{': case '}': case '*': case '+': case '?':
          return false;
        case '(': {
          ++i_;
          bool capture = true;
          Mode inner_mode = mode;
          if (At('?')) {
            ++i_;
            if (At('P')) {
              ++i_;
              if (!At('<')) return false;
              ++i_;
              const size_t start = i_;
              while (i_ < s_.size() && (IsAsciiAlnum(s_[i_]) || s_[i_] == '_')) ++i_;
              if (i_ == start || !At('>')) return false;
              ++i_;
            } else {
              capture = false;
              bool negated = false;
              while (i_ < s_.size() && s_[i_] != ':' && s_[i_] != ')') {
                const char f = s_[i_++];
                if (f == '-' && !negated) {
                  negated = true;
                } else if (f == 's') {
                  inner_mode.dot_nl = !negated;
                } else if (f == 'i') {
                  inner_mode.fold = !negated;
                } else if (f != 'm' && f != 'U') {
                  return false;
                }
              }
              if (i_ >= s_.size()) return false;
              if (s_[i_++] == ')') {  // (?flags): the rest of this group
                mode = inner_mode;
                continue;
              }
            }
          }
          std::vector<std::vector<Node>> branches;
          if (!Branches(&branches, inner_mode) || !At(')')) return false;
          ++i_;
          std::vector<Node> inner;
          if (branches.size() == 1) {
            inner = std::move(branches[0]);
          } else {
            Node alt;
            if (!Alternation(std::move(branches), &alt)) return false;
            // Factored whole into one concatenation, which RE2 splices into the enclosing one.
            if (alt.kind == Node::kConcat) {
              inner = std::move(alt.subs);
            } else {
              inner.push_back(std::move(alt));
            }
          }
          if (capture) {
            atom.kind = Node::kCapture;
            atom.subs.push_back(Collapse(std::move(inner)));
          } else {
            group = std::move(inner);
            is_group = true;
          }
          break;
        }
        case '[':
          if (!Class(&atom, mode.fold)) return false;
          break;
        case '.':
          ++i_;
          if (mode.dot_nl) {
            atom.kind = Node::kAnyChar;
          } else {
            atom.kind = Node::kClass;
            atom.ranges = {{0, '\n' - 1}, {'\n' + 1, kRuneMax}};
          }
          break;
        case '^': case '$':
          ++i_;
          atom.kind = Node::kEmptyWidth;
          break;
        case '\\': {
          if (i_ + 1 >= s_.size()) return false;
          const char e = s_[i_ + 1];
          if (e != '\0' && std::strchr("bBAz", e)) {
            i_ += 2;
            atom.kind = Node::kEmptyWidth;
          } else if (e != '\0' && std::strchr("dDsSwW", e)) {
            i_ += 2;
            atom.kind = Node::kClass;
            if (!PerlClassFolded(e, mode.fold, &atom.ranges) || !OneRune(&atom, mode.fold)) return false;
          } else {
            int r;
            if (!Char(&r) || !Literal(r, mode.fold, &atom)) return false;
          }
          break;
        }
        default:
          if (!Printable(c)) return false;
          ++i_;
          if (!Literal(static_cast<unsigned char>(c), mode.fold, &atom)) return false;
          break;
      }
      if (At('*') || At('+') || At('?')) {
        Node rep;
        rep.kind = At('*') ? Node::kStar : At('+') ? Node::kPlus : Node::kQuest;
        ++i_;
        if (At('?')) ++i_;  // non-greedy: the same strings
        if (At('*') || At('+') || At('?') || At('{')) return false;
        Node operand = is_group ? Collapse(std::move(group)) : std::move(atom);
        if (operand.kind == Node::kLiteral && operand.text.size() == 1) {  // (?:a)* is a* to RE2
          operand.kind = Node::kChar;
          operand.rune = static_cast<unsigned char>(operand.text[0]);
          operand.text.clear();
        }
        // RE2 squashes a repeat of a repeat, and simplifies a repeated empty match to itself.
        if (operand.Repeat() || operand.kind == Node::kEmptyWidth || operand.kind == Node::kEmptyMatch) return false;
        rep.subs.push_back(std::move(operand));
        items->push_back(std::move(rep));
      } else if (At('{')) {
        return false;
      } else if (is_group) {
        if (group.empty()) {
          items->push_back(Node{});  // an empty group: RE2's empty match
        } else if (group.size() == 1) {
          Push(items, std::move(group[0]));  // a literal run joins the one before, as RE2 joins them
        } else {
          // A concatenation: RE2 splices its items in, the first not joined to a literal before it
          // (which decides the leading string of a branch: Factor).
          items->push_back(std::move(group[0]));
          for (size_t g = 1; g < group.size(); ++g) Push(items, std::move(group[g]));
        }
      } else {
        Push(items, std::move(atom));
      }
    }
    return true;
  }

  // Appends an item; characters in a row make one run (their exact sets are single strings, so their
  // cross products are the same however RE2 groups them).
  static void Push(std::vector<Node>* items, Node n) {
    if (n.kind == Node::kChar) {
      n.kind = Node::kLiteral;
      n.text.assign(1, static_cast<char>(n.rune));
    }
    if (n.kind == Node::kLiteral && !items->empty() && items->back().kind == Node::kLiteral && items->back().fold == n.fold) {
      items->back().text += n.text;
      return;
    }
    items->push_back(std::move(n));
  }

  // A character outside a class or inside one (not a Perl class): printable ASCII, or an escape of
  // punctuation, \n \r \t, or \x with two hex digits or {hex} below 0x80.
  bool Char(int* r) {
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c != '\\') {
      if (!Printable(c)) return false;
      ++i_;
      *r = static_cast<unsigned char>(c);
      return true;
    }
    if (i_ + 1 >= s_.size()) return false;
    const char e = s_[i_ + 1];
    i_ += 2;
    if (e == 'n') { *r = '\n'; return true; }
    if (e == 'r') { *r = '\r'; return true; }
    if (e == 't') { *r = '\t'; return true; }
    if (e == 'x') {
      int v = 0, digits = 0;
      const bool braced = At('{');
      if (braced) ++i_;
      while (i_ < s_.size() && IsAsciiXDigit(s_[i_]) && (braced || digits < 2)) {
        v = v * 16 + (IsAsciiDigit(s_[i_]) ? s_[i_] - '0' : AsciiLower(static_cast<unsigned char>(s_[i_])) - 'a' + 10);
        ++i_;
        if (++digits > 6) return false;
      }
      if (braced) {
        if (!At('}') || digits == 0) return false;
        ++i_;
      } else if (digits != 2) {
        return false;
      }
      if (v >= 0x80) return false;
      *r = v;
      return true;
    }
    if (Printable(e) && !IsAsciiAlnum(e)) {
      *r = static_cast<unsigned char>(e);
      return true;
    }
    return false;
  }

  bool Class(Node* atom, bool fold) {
    ++i_;  // '['
    bool negated = false;
    if (At('^')) {
      negated = true;
      ++i_;
    }
    if (At(']')) return false;  // a leading ']' is a literal to RE2: not read here
    Ranges r;
    for (;;) {
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ']') {
        ++i_;
        break;
      }
      if (s_[i_] == '[') return false;  // POSIX classes
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] != '\0' && std::strchr("dDsSwW", s_[i_ + 1])) {
        PerlClass(s_[i_ + 1], &r);
        i_ += 2;
        continue;
      }
      int lo, hi;
      if (!Char(&lo)) return false;
      hi = lo;
      if (At('-') && i_ + 1 < s_.size() && s_[i_ + 1] != ']') {
        ++i_;
        if (!Char(&hi) || hi < lo) return false;
      }
      AddRange(&r, lo, hi);
    }
    if (fold && !FoldAscii(&r)) return false;  // RE2 folds the class, then negates it
    atom->kind = Node::kClass;
    atom->ranges = negated ? Negate(r) : r;
    return OneRune(atom, fold);
  }

  // A Perl class as RE2 adds it (AddUGroup): under (?i) folded, a negated one folded before it is
  // negated. False where that is not known here.
  static bool PerlClassFolded(char e, bool fold, Ranges* r) {
    Ranges g;
    PerlClass(static_cast<char>(AsciiLower(static_cast<unsigned char>(e))), &g);
    if (fold && !FoldAscii(&g)) return false;
    if (IsAsciiUpper(e)) g = Negate(g);
    for (const auto& [lo, hi] : g) AddRange(r, lo, hi);
    return true;
  }

  // A literal character as RE2's parser pushes it: under (?i) a letter whose fold orbit has more than
  // its two cases (k, s) is a class of the orbit, any other character a literal folding case (a
  // letter held in lower case).
  static bool Literal(int rune, bool fold, Node* atom) {
    if (fold && rune < 0x80 && (AsciiLower(rune) == 'k' || AsciiLower(rune) == 's')) {
      atom->kind = Node::kClass;
      atom->ranges = {{rune, rune}};
      return FoldAscii(&atom->ranges);
    }
    atom->kind = Node::kChar;
    atom->rune = fold ? AsciiLower(rune) : rune;
    atom->fold = fold;
    return true;
  }

  // RE2's parser (PushRegexp) turns a class of one rune into that literal (folding case under (?i))
  // and [Aa] into the literal 'a' folding case; an empty class (no match) is not read here.
  static bool OneRune(Node* atom, bool fold) {
    const long n = RuneCount(atom->ranges);
    if (n == 0) return false;
    const int lo = atom->ranges.front().first;
    if (n == 2 && IsAsciiUpper(lo) && atom->ranges.back().second == lo + ('a' - 'A')) {
      atom->kind = Node::kChar;
      atom->rune = lo + ('a' - 'A');
      atom->fold = true;
      atom->ranges.clear();
      return true;
    }
    if (n != 1) return true;
    if (lo >= 0x80) return false;
    atom->kind = Node::kChar;
    atom->rune = lo;
    atom->fold = fold;
    atom->ranges.clear();
    return true;
  }

  const std::string& s_;
  size_t i_ = 0;
};

// RE2's simplifier merges a repeated character, class or dot with what follows it when that is the
// same one, repeated or not, or a literal string starting with it (CoalesceWalker in simplify.cc).
// One case is done here as RE2 does it: `x*` before a literal string of two characters or more
// starting with one x (not two) becomes `x+` before the rest of the string. False for the others
// (judged loosely: any two neighbours that could be equal), and where such a merge would also drop
// the concatenation's empty matches.
bool Coalesce(Node* n) {
  for (Node& s : n->subs) {
    if (!Coalesce(&s)) return false;
  }
  if (n->kind != Node::kConcat) return true;
  const bool has_empty =
      std::any_of(n->subs.begin(), n->subs.end(), [](const Node& s) { return s.kind == Node::kEmptyMatch; });
  for (size_t i = 0; i + 1 < n->subs.size(); ++i) {
    Node& a = n->subs[i];
    if (!a.Repeat() || !a.subs[0].OneChar()) continue;
    const Node& x = a.subs[0];
    Node& next = n->subs[i + 1];
    const Node& y = next.Repeat() ? next.subs[0] : next;
    if (x.kind == Node::kChar && y.kind == Node::kLiteral) {
      // RE2 compares the runes, case included, and whether they fold case; a repeated string is no
      // literal string to it.
      if (next.Repeat() || x.rune != static_cast<unsigned char>(y.text[0]) || x.fold != y.fold) continue;
      if (a.kind != Node::kStar || y.text.size() < 2 || y.text[1] == y.text[0] || has_empty) return false;
      a.kind = Node::kPlus;
      next.text.erase(0, 1);
      continue;
    }
    if (x.kind != y.kind) continue;
    if (x.kind == Node::kAnyChar) return false;
    if (x.kind == Node::kClass && x.ranges == y.ranges) return false;
    if (x.kind == Node::kChar && AsciiLower(x.rune) == AsciiLower(y.rune)) return false;
  }
  return true;
}

// RE2's Prefilter nodes; the op order is RE2's (AndOr canonicalises by it).
struct Filter {
  enum Op { kAll = 0, kNone, kAtom, kAnd, kOr };
  Op op = kAll;
  std::string atom;
  std::vector<Filter> subs;
};

Filter SimplifyFilter(Filter f) {
  if (f.op != Filter::kAnd && f.op != Filter::kOr) return f;
  if (f.subs.empty()) {
    f.op = f.op == Filter::kAnd ? Filter::kAll : Filter::kNone;
    return f;
  }
  if (f.subs.size() == 1) return SimplifyFilter(std::move(f.subs[0]));
  return f;
}

// Prefilter::AndOr, case for case.
Filter AndOr(Filter::Op op, Filter a, Filter b) {
  a = SimplifyFilter(std::move(a));
  b = SimplifyFilter(std::move(b));
  if (a.op > b.op) std::swap(a, b);
  if (a.op == Filter::kAll || a.op == Filter::kNone) {
    if ((a.op == Filter::kAll && op == Filter::kAnd) || (a.op == Filter::kNone && op == Filter::kOr)) return b;
    return a;
  }
  if (a.op == op && b.op == op) {
    for (Filter& s : b.subs) a.subs.push_back(std::move(s));
    return a;
  }
  if (b.op == op) std::swap(a, b);
  if (a.op == op) {
    a.subs.push_back(std::move(b));
    return a;
  }
  Filter c;
  c.op = op;
  c.subs.push_back(std::move(a));
  c.subs.push_back(std::move(b));
  return c;
}

// Prefilter::OrStrings: the strings, less those containing an earlier one, ORed.
Filter OrStrings(std::vector<std::string> ss) {
  // Strings of one length, each once, cannot hold one another: nothing to drop.
  const bool one_length = std::all_of(ss.begin(), ss.end(), [&](const std::string& x) { return x.size() == ss[0].size(); });
  for (size_t i = 0; i < ss.size() && !one_length; ++i) {
    if (ss[i].empty()) continue;
    ss.erase(std::remove_if(ss.begin() + i + 1, ss.end(),
                            [&](const std::string& later) { return later.find(ss[i]) != std::string::npos; }),
             ss.end());
  }
  // ORing the atoms in turn onto NONE (AndOr) gives NONE, the one atom, or an OR of them in order.
  Filter f;
  f.op = ss.empty() ? Filter::kNone : ss.size() == 1 ? Filter::kAtom : Filter::kOr;
  if (ss.size() == 1) f.atom = std::move(ss[0]);
  if (ss.size() > 1) {
    f.subs.resize(ss.size());
    for (size_t i = 0; i < ss.size(); ++i) {
      f.subs[i].op = Filter::kAtom;
      f.subs[i].atom = std::move(ss[i]);
    }
  }
  return f;
}

// Prefilter::Info: an exact set of strings, or a filter every match satisfies.
struct Info {
  bool exact = false;
  std::vector<std::string> strings;  // sorted, each once (RE2's std::set)
  Filter match;

  Filter TakeMatch() {
    if (exact) {
      match = OrStrings(std::move(strings));
      strings.clear();
      exact = false;
    }
    return std::move(match);
  }
};

Info ExactInfo(std::vector<std::string> strings) {
  Info i;
  i.exact = true;
  i.strings = std::move(strings);
  return i;
}

Info MatchInfo(Filter f) {
  Info i;
  i.match = std::move(f);
  return i;
}

// Info::And and Info::Concat with RE2's null operands (an absent Info).
std::optional<Info> AndInfo(std::optional<Info> a, std::optional<Info> b) {
  if (!a) return b;
  if (!b) return a;
  return MatchInfo(AndOr(Filter::kAnd, a->TakeMatch(), b->TakeMatch()));
}

Info ConcatInfo(std::optional<Info> a, Info b) {
  if (!a) return b;
  if (a->strings.size() == 1 && b.strings.size() == 1) {
    a->strings[0] += b.strings[0];
    return std::move(*a);
  }
  std::vector<std::string> product;
  for (const std::string& x : a->strings) {
    for (const std::string& y : b.strings) product.push_back(x + y);
  }
  std::sort(product.begin(), product.end());
  product.erase(std::unique(product.begin(), product.end()), product.end());
  return ExactInfo(std::move(product));
}

// The Info RE2's walker builds for a node of the subset; false for a class it does not read.
bool BuildInfo(const Node& n, Info* out) {
  switch (n.kind) {
    case Node::kChar:
      if (n.rune >= 0x80) return false;
      *out = ExactInfo({std::string(1, static_cast<char>(AsciiLower(n.rune)))});
      return true;
    case Node::kLiteral: {
      std::string lower = n.text;
      for (char& c : lower) c = static_cast<char>(AsciiLower(static_cast<unsigned char>(c)));
      *out = ExactInfo({std::move(lower)});
      return true;
    }
    case Node::kClass: {
      if (RuneCount(n.ranges) > static_cast<long>(kMaxExactClass)) {
        *out = MatchInfo(Filter{});
        return true;
      }
      std::vector<std::string> s;
      for (const auto& [a, b] : n.ranges) {
        for (int r = a; r <= b; ++r) {
          const int lower = LowerRune(r);
          if (lower < 0) return false;
          s.emplace_back(1, static_cast<char>(lower));
        }
      }
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      *out = ExactInfo(std::move(s));
      return true;
    }
    case Node::kAlternate: {  // Info::Alt over the branches in turn
      for (size_t i = 0; i < n.subs.size(); ++i) {
        Info ci;
        if (!BuildInfo(n.subs[i], &ci)) return false;
        if (i == 0) {
          *out = std::move(ci);
        } else if (out->exact && ci.exact) {
          std::vector<std::string> u;
          std::set_union(out->strings.begin(), out->strings.end(), ci.strings.begin(), ci.strings.end(), std::back_inserter(u));
          out->strings = std::move(u);
        } else {
          *out = MatchInfo(AndOr(Filter::kOr, out->TakeMatch(), ci.TakeMatch()));
        }
      }
      return true;
    }
    case Node::kAnyChar:
    case Node::kStar:
    case Node::kQuest:
      *out = MatchInfo(Filter{});
      return true;
    case Node::kEmptyWidth:
    case Node::kEmptyMatch:
      *out = ExactInfo({std::string()});
      return true;
    case Node::kCapture:
      return BuildInfo(n.subs[0], out);
    case Node::kPlus: {
      Info sub;
      if (!BuildInfo(n.subs[0], &sub)) return false;
      *out = MatchInfo(sub.TakeMatch());
      return true;
    }
    case Node::kConcat: {
      std::optional<Info> info, run;
      for (const Node& s : n.subs) {
        Info ci;
        if (!BuildInfo(s, &ci)) return false;
        if (!ci.exact || (run && ci.strings.size() * run->strings.size() > kMaxExactProduct)) {
          info = AndInfo(std::move(info), std::move(run));
          run.reset();
          info = AndInfo(std::move(info), std::move(ci));
        } else {
          run = ConcatInfo(std::move(run), std::move(ci));
        }
      }
      info = AndInfo(std::move(info), std::move(run));
      *out = std::move(*info);
      return true;
    }
  }
  return false;
}

// PrefilterTree::KeepNode: drops atoms shorter than the minimum (an AND keeps its other parts).
bool KeepNode(Filter* f) {
  switch (f->op) {
    case Filter::kAll:
    case Filter::kNone:
      return false;
    case Filter::kAtom:
      return f->atom.size() >= kMinAtomLen;
    case Filter::kAnd: {
      std::vector<Filter> kept;
      for (Filter& s : f->subs) {
        if (KeepNode(&s)) kept.push_back(std::move(s));
      }
      f->subs = std::move(kept);
      return !f->subs.empty();
    }
    case Filter::kOr:
      for (Filter& s : f->subs) {
        if (!KeepNode(&s)) return false;
      }
      return true;
  }
  return false;
}

}  // namespace

bool PatternPrefilter::Passes(const std::vector<int>& present) const {
  if (root_ < 0) return true;  // unfiltered
  std::vector<char> atom_present(atoms_.size(), 0);
  for (int a : present) atom_present[static_cast<size_t>(a)] = 1;
  std::vector<char> value(nodes_.size(), 0);
  for (size_t id = 0; id < nodes_.size(); ++id) {  // children before parents
    const Node& n = nodes_[id];
    if (n.atom >= 0) {
      value[id] = atom_present[static_cast<size_t>(n.atom)];
    } else if (n.all) {
      value[id] = std::all_of(n.children.begin(), n.children.end(), [&](int c) { return value[static_cast<size_t>(c)] != 0; });
    } else {
      value[id] = std::any_of(n.children.begin(), n.children.end(), [&](int c) { return value[static_cast<size_t>(c)] != 0; });
    }
  }
  return value[static_cast<size_t>(root_)] != 0;
}

bool PatternPrefilter::PassesText(std::string_view text) const {
  if (root_ < 0) return true;
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(AsciiLower(static_cast<unsigned char>(c)));
  std::vector<int> present;
  for (size_t a = 0; a < atoms_.size(); ++a) {
    if (lower.find(atoms_[a]) != std::string::npos) present.push_back(static_cast<int>(a));
  }
  return Passes(present);
}

std::optional<PatternPrefilter> ReadPatternPrefilter(const std::string& pattern) {
  if (pattern.size() > 2000) return std::nullopt;  // far below RE2's walk budget
  Node root;
  if (!SubsetParser(pattern).Parse(&root) || !Coalesce(&root)) return std::nullopt;
  Info info;
  if (!BuildInfo(root, &info)) return std::nullopt;
  Filter f = info.TakeMatch();
  PatternPrefilter out;
  if (!KeepNode(&f)) return out;  // no prefilter: matched unfiltered
  // PrefilterTree::AssignUniqueIds: the nodes top-down, breadth first; numbered from the last, a node
  // whose op and children's numbers (or atom) equal an earlier-numbered one's sharing its number;
  // atoms listed as their nodes are numbered.
  std::vector<const Filter*> order{&f};
  std::vector<std::vector<size_t>> child_at{{}};
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Filter& sub : order[i]->subs) {
      child_at[i].push_back(order.size());
      order.push_back(&sub);
      child_at.emplace_back();
    }
  }
  std::map<std::string, int> ids;
  std::vector<int> id_at(order.size(), -1);
  for (size_t k = order.size(); k-- > 0;) {
    const Filter& node = *order[k];
    // The key: the op's byte, then the atom or the children's numbers (each as its 4 bytes).
    std::string key(1, static_cast<char>(node.op));
    if (node.op == Filter::kAtom) {
      key += node.atom;
    } else {
      for (size_t c : child_at[k]) key.append(reinterpret_cast<const char*>(&id_at[c]), sizeof id_at[c]);
    }
    auto [it, added] = ids.emplace(std::move(key), static_cast<int>(out.nodes_.size()));
    id_at[k] = it->second;
    if (!added) continue;
    PatternPrefilter::Node n;
    if (node.op == Filter::kAtom) {
      n.atom = static_cast<int>(out.atoms_.size());
      out.atoms_.push_back(node.atom);
    } else {
      n.all = node.op == Filter::kAnd;
      for (size_t c : child_at[k]) {
        if (std::find(n.children.begin(), n.children.end(), id_at[c]) == n.children.end()) n.children.push_back(id_at[c]);
      }
    }
    out.nodes_.push_back(std::move(n));
  }
  out.root_ = id_at[0];
  // The tree drops an AND's edge to a child with more than nine parents (a heuristic for sets of
  // many patterns); evaluated node by node here, so such a prefilter is left to it.
  std::vector<int> parents(out.nodes_.size(), 0);
  for (const PatternPrefilter::Node& n : out.nodes_) {
    for (int c : n.children) {
      if (++parents[static_cast<size_t>(c)] > 9) return std::nullopt;
    }
  }
  return out;
}

namespace {

// Note: [Program size bound]
// Loading checks each pattern's program size alone against the budget (Note: [Pattern budget] in
// rules/rule_reader.cc) and keeps it for the set's size check (Note: [Set size bound] in
// rules/rule_loader.cc). The exact size takes RE2's parse and compile of the pattern (~170 K
// instructions, ~125 M of a start with no cache), and nothing else needs that compile when the
// pattern's atoms are read from its text (Note: [Literal fast path]). For a strict subset of the syntax,
// whose every pattern RE2 accepts, an upper bound of the size is counted from the text instead, as
// RE2's compiler (re2/compile.cc, 2022-06) spends instructions. RE2's size is that of the program
// Prog::Flatten leaves: each instruction reachable before it, but alternations and no-ops, once, and
// a no-op per edge an alternation or a no-op has into another list, so at most the other
// instructions plus two per alternation plus one per no-op before it. Counted so, each generously:
// - a literal character or an empty-width assertion: 1 (a character outside ASCII: its UTF-8
//   bytes); under (?i) k and s: the class of their fold orbit (with KELVIN SIGN, LONG S), another
//   character outside ASCII: 25 (a class of at most four runes of four bytes);
// - a character class: per range of runes, each piece of RE2's UTF-8 split (the same split:
//   AddRuneRangeUTF8) its bytes plus an alternation (2), suffixes not shared (RE2 shares them), plus 1;
// - a capture: 2; `*` `+` `?` (also non-greedy): two alternations, 4 (RE2 spends one, two for a
//   nullable operand's star); an alternation: 2 per `|`; every concatenation 1 (an empty one is a
//   no-op);
// - the program: the fail instruction, the match, the unanchored prefix `.*?` (a byte range, an
//   alternation, a no-op), and slack: 14.
// - a class under (?i): the class folded as RE2 folds it (ASCII letters' other cases, k and s their
//   orbits; a class holding other runes outside ASCII is outside the subset), negated after.
// The subset: literal printable ASCII but `\ [ ] ( ) { } | * + ? . ^ $`, and valid UTF-8 characters
// (not surrogates); `.` `^` `$`; escapes of ASCII punctuation, `\n` `\t` `\r` `\f`, `\xHH`, `\x{H...}`
// (at most 0x10FFFF), `\d \D \s \S \w \W`, `\b \B \A \z`; classes `[...]` / `[^...]` of those
// characters, escapes and ranges (lo <= hi), a `-` only first or last, no `[` inside, not empty;
// groups `(`, `(?:`, `(?P<name>` (a name of word characters starting with a letter or `_`, each once),
// `(?flags)` and `(?flags:` (flags of `imsU`, one `-` followed by at least one), nested at most 64
// deep; `*` `+` `?` each with an optional `?`, not after another repetition, at a branch's start or
// after `(?flags)`. Anything else (counted repeats, \p, \C, POSIX classes, a bad range...) is outside
// it and the caller compiles the pattern. tests/pattern_atoms_test.cc checks that RE2 accepts every
// pattern read here and compiles it to at most the bound, on every bundled, crafted and random pattern.

constexpr int kMaxBoundDepth = 64;

// An upper bound of what the rune range [lo, hi] of a class adds to the flattened program: its UTF-8
// split into pieces whose bytes are each one range, and per piece its bytes and one alternation (2).
long RangeInstructions(int lo, int hi) {
  static const int kMaxLen[] = {0x7F, 0x7FF, 0xFFFF, kRuneMax};
  for (int n = 0; n < 3; ++n) {  // split where the encoded length changes
    if (lo <= kMaxLen[n] && hi > kMaxLen[n]) return RangeInstructions(lo, kMaxLen[n]) + RangeInstructions(kMaxLen[n] + 1, hi);
  }
  if (hi < 0x80) return 3;
  const int len = hi <= 0x7FF ? 2 : hi <= 0xFFFF ? 3 : 4;
  for (int i = 1; i < len; ++i) {  // split until all but the leading bytes cover their full ranges
    const int m = (1 << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) return RangeInstructions(lo, lo | m) + RangeInstructions((lo | m) + 1, hi);
      if ((hi & m) != m) return RangeInstructions(lo, (hi & ~m) - 1) + RangeInstructions(hi & ~m, hi);
    }
  }
  return len + 2;
}

long ClassInstructions(const Ranges& r) {
  long n = 1;
  for (const auto& [lo, hi] : r) n += RangeInstructions(lo, hi);
  return n;
}

bool Punctuation(char c) { return c > 0x20 && c < 0x7F && IsAsciiPunct(c) && c != '_'; }

// Decodes one UTF-8 character of at least two bytes at s[*i] (a valid, shortest encoding of a rune
// outside the surrogates), advancing *i; false for anything else.
bool DecodeUtf8(const std::string& s, size_t* i, int* rune) {
  const unsigned char c = static_cast<unsigned char>(s[*i]);
  const int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (len == 0 || *i + len > s.size()) return false;
  int r = c & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[*i + k]);
    if ((b & 0xC0) != 0x80) return false;
    r = r << 6 | (b & 0x3F);
  }
  static const int kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (r < kMin[len] || r > kRuneMax || (r >= 0xD800 && r <= 0xDFFF)) return false;
  *i += len;
  *rune = r;
  return true;
}

int Utf8Length(int rune) { return rune < 0x80 ? 1 : rune < 0x800 ? 2 : rune < 0x10000 ? 3 : 4; }

// Counts an upper bound of a pattern's program (Note: [Program size bound]); false outside the subset.
class BoundCounter {
 public:
  explicit BoundCounter(const std::string& s) : s_(s) {}

  bool Count(long* instructions) {
    long n = 0;
    if (!Alternation(0, &n) || i_ != s_.size()) return false;
    *instructions = n + 14;
    return true;
  }

 private:
  static bool Repeat(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

  bool Alternation(int depth, long* n) {
    if (depth > kMaxBoundDepth) return false;
    for (;;) {
      if (!Concat(depth, n)) return false;
      if (i_ >= s_.size() || s_[i_] != '|') return true;
      ++i_;
      *n += 2;
    }
  }

  bool Concat(int depth, long* n) {
    ++*n;
    while (i_ < s_.size() && s_[i_] != '|' && s_[i_] != ')') {
      bool flags_only = false;
      if (!Atom(depth, n, &flags_only)) return false;
      if (flags_only) {  // flags for the rest of the group: nothing to repeat
        if (i_ < s_.size() && Repeat(s_[i_])) return false;
        continue;
      }
      if (i_ < s_.size() && Repeat(s_[i_])) {
        if (s_[i_] == '{') return false;
        ++i_;
        if (i_ < s_.size() && s_[i_] == '?') ++i_;
        if (i_ < s_.size() && Repeat(s_[i_])) return false;
        *n += 4;
      }
    }
    return true;
  }

  // Flags after `(?` up to `:` (a group: *group) or `)` (the rest of the enclosing group): i m s U, a
  // `-` once, followed by at least one flag. *fold: whether (?i) is in force after them.
  bool Flags(bool* group, bool* fold) {
    bool negated = false, flag_seen = false;
    *fold = fold_;
    for (; i_ < s_.size(); ++i_) {
      const char f = s_[i_];
      if (f == ':' || f == ')') {
        if (negated && !flag_seen) return false;
        ++i_;
        *group = f == ':';
        return true;
      }
      if (f == '-') {
        if (negated) return false;
        negated = true;
        flag_seen = false;
      } else if (f == 'i' || f == 'm' || f == 's' || f == 'U') {
        flag_seen = true;
        if (f == 'i') *fold = !negated;
      } else {
        return false;
      }
    }
    return false;
  }

  bool Atom(int depth, long* n, bool* flags_only) {
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      bool capture = true;
      const bool saved_fold = fold_;
      if (i_ < s_.size() && s_[i_] == '?') {
        if (s_.compare(i_, 3, "?P<") == 0) {
          i_ += 3;
          const size_t start = i_;
          while (i_ < s_.size() && (IsAsciiAlnum(s_[i_]) || s_[i_] == '_')) ++i_;
          if (i_ == start || i_ >= s_.size() || s_[i_] != '>' || IsAsciiDigit(s_[start])) return false;
          if (!names_.insert(s_.substr(start, i_ - start)).second) return false;  // RE2: duplicate name
          ++i_;
        } else {
          ++i_;
          bool group = false, fold = false;
          if (!Flags(&group, &fold)) return false;
          fold_ = fold;
          if (!group) {  // (?flags): the rest of the enclosing group
            *flags_only = true;
            return true;
          }
          capture = false;
        }
      }
      if (!Alternation(depth + 1, n) || i_ >= s_.size() || s_[i_] != ')') return false;
      ++i_;
      fold_ = saved_fold;
      if (capture) *n += 2;
      return true;
    }
    if (c == '[') return Class(n);
    if (c == '\\') {
      if (i_ + 1 >= s_.size()) return false;
      const char e = s_[i_ + 1];
      Ranges r;
      if (PerlClass(e, &r)) {
        i_ += 2;
        *n += ClassInstructions(FoldPerl(e, r));
        return true;
      }
      if (e == 'b' || e == 'B' || e == 'A' || e == 'z') {
        i_ += 2;
        ++*n;
        return true;
      }
      int rune = 0;
      if (!EscapedChar(&rune)) return false;
      *n += LiteralInstructions(rune);
      return true;
    }
    if (c == '.') {
      ++i_;
      *n += ClassInstructions({{0, '\n' - 1}, {'\n' + 1, kRuneMax}});  // also bounds `.` under (?s)
      return true;
    }
    if (c == '^' || c == '$') {
      ++i_;
      ++*n;
      return true;
    }
    int rune = static_cast<unsigned char>(c);
    if (rune >= 0x80) {
      if (!DecodeUtf8(s_, &i_, &rune)) return false;
    } else {
      if (c < 0x20 || c == 0x7F || Repeat(c) || c == ']' || c == '}') return false;  // '|' and ')' end a concatenation
      ++i_;
    }
    *n += LiteralInstructions(rune);
    return true;
  }

  // What a literal rune costs: its UTF-8 bytes; under (?i) k and s are classes of three runes, and a
  // rune outside ASCII a class of its fold orbit (at most four runes of four bytes: 25).
  long LiteralInstructions(int rune) const {
    if (!fold_) return Utf8Length(rune);
    if (rune >= 0x80) return 25;
    const int lower = AsciiLower(rune);
    if (lower != 'k' && lower != 's') return 1;
    Ranges r{{rune, rune}};
    FoldAscii(&r);
    return ClassInstructions(r);
  }

  // A Perl class (ranges r, from PerlClass) as RE2 adds it under (?i): folded, a negated one folded
  // before it is negated.
  Ranges FoldPerl(char e, Ranges r) const {
    if (!fold_) return r;
    if (IsAsciiUpper(e)) r = Negate(r);
    FoldAscii(&r);
    return IsAsciiUpper(e) ? Negate(r) : r;
  }

  // An escape standing for one character at i_ (`\n` `\t` `\r` `\f`, escaped punctuation, `\x` with two
  // hex digits or with hex digits in braces) into *rune; false for anything else.
  bool EscapedChar(int* rune) {
    const char e = s_[i_ + 1];
    const int plain = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'f' ? '\f' : Punctuation(e) ? e : 0;
    if (plain) {
      i_ += 2;
      *rune = plain;
      return true;
    }
    if (e != 'x') return false;
    size_t k = i_ + 2;
    int v = 0;
    if (k < s_.size() && s_[k] == '{') {
      size_t digits = 0;
      for (++k; k < s_.size() && IsAsciiXDigit(s_[k]); ++k, ++digits) {
        v = v * 16 + (IsAsciiDigit(s_[k]) ? s_[k] - '0' : AsciiLower(static_cast<unsigned char>(s_[k])) - 'a' + 10);
        if (v > kRuneMax) return false;
      }
      if (digits == 0 || k >= s_.size() || s_[k] != '}') return false;
      ++k;
    } else {
      if (k + 2 > s_.size() || !IsAsciiXDigit(s_[k]) || !IsAsciiXDigit(s_[k + 1])) return false;
      for (size_t d = k; d < k + 2; ++d) {
        v = v * 16 + (IsAsciiDigit(s_[d]) ? s_[d] - '0' : AsciiLower(static_cast<unsigned char>(s_[d])) - 'a' + 10);
      }
      k += 2;
    }
    i_ = k;
    *rune = v;
    return true;
  }

  // One character of a class at i_ (a plain one, UTF-8 or an escaped one) into *rune; false for
  // anything else.
  bool ClassChar(int* rune) {
    const char c = s_[i_];
    if (c == '\\') return i_ + 1 < s_.size() && EscapedChar(rune);
    if (static_cast<unsigned char>(c) >= 0x80) return DecodeUtf8(s_, &i_, rune);
    if (c < 0x20 || c == 0x7F || c == '[') return false;
    *rune = c;
    ++i_;
    return true;
  }

  bool Class(long* n) {
    ++i_;  // '['
    bool negated = false;
    if (i_ < s_.size() && s_[i_] == '^') {
      negated = true;
      ++i_;
    }
    Ranges r;
    bool first = true;
    while (i_ < s_.size() && s_[i_] != ']') {
      if (s_[i_] == '-' && !first && !(i_ + 1 < s_.size() && s_[i_ + 1] == ']')) return false;
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && PerlClass(s_[i_ + 1], &r)) {
        i_ += 2;
        if (i_ < s_.size() && s_[i_] == '-' && !(i_ + 1 < s_.size() && s_[i_ + 1] == ']')) return false;
        first = false;
        continue;
      }
      int lo = 0;
      if (!ClassChar(&lo)) return false;
      int hi = lo;
      if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] != ']') {
        ++i_;
        if (!ClassChar(&hi) || hi < lo) return false;
      }
      AddRange(&r, lo, hi);
      first = false;
    }
    if (i_ >= s_.size() || first) return false;  // unterminated, or `[]` / `[^]`
    ++i_;
    // Under (?i) the class is folded before it is negated (only classes of ASCII runes here).
    if (fold_ && !FoldAscii(&r)) return false;
    *n += ClassInstructions(negated ? Negate(r) : r);
    return true;
  }

  const std::string& s_;
  size_t i_ = 0;
  bool fold_ = false;  // (?i) in force
  std::set<std::string> names_;
};

}  // namespace

std::optional<int> ProgramSizeBound(const std::string& pattern) {
  // A load asks twice per pattern in a row (the size check, then RequiredLiterals, which needs to
  // know RE2 accepts it): the last answer of this thread is kept.
  thread_local std::string last;
  thread_local std::optional<int> last_answer;
  if (pattern == last && !last.empty()) return last_answer;
  long n = 0;
  std::optional<int> answer;
  if (BoundCounter(pattern).Count(&n) && n <= (1 << 30)) answer = static_cast<int>(n);
  last = pattern;
  last_answer = answer;
  return answer;
}

}  // namespace triage
