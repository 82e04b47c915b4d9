#include "log/utf16_input.h"

namespace triage {

namespace {

// A character a log's first bytes may hold as ASCII: printable, a tab or a line end.
bool AsciiText(unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\r' || c == '\n'; }

constexpr unsigned kReplacement = 0xfffd;

}  // namespace

void AppendUtf8(std::uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

Utf16Input::Order Utf16Input::Detect(std::string_view head, size_t* mark) {
  *mark = 0;
  if (head.size() >= 2) {
    const auto b0 = static_cast<unsigned char>(head[0]), b1 = static_cast<unsigned char>(head[1]);
    if (b0 == 0xff && b1 == 0xfe) {
      *mark = 2;
      return Order::kLittle;
    }
    if (b0 == 0xfe && b1 == 0xff) {
      *mark = 2;
      return Order::kBig;
    }
  }
  if (head.size() < kSniffBytes) return Order::kNone;
  bool little = true, big = true;
  for (size_t i = 0; i + 1 < kSniffBytes; i += 2) {
    const auto a = static_cast<unsigned char>(head[i]), b = static_cast<unsigned char>(head[i + 1]);
    little = little && b == 0 && AsciiText(a);
    big = big && a == 0 && AsciiText(b);
  }
  return little ? Order::kLittle : big ? Order::kBig : Order::kNone;
}

bool Utf16Input::StartsAppended(char before, std::string_view from_nul) {
  if (from_nul.size() < kSniffBytes - 1 || !AsciiText(static_cast<unsigned char>(before))) return false;
  for (size_t i = 0; i + 1 < kSniffBytes; i += 2) {
    if (from_nul[i] != '\0') return false;
    if (i + 1 < kSniffBytes - 1 && !AsciiText(static_cast<unsigned char>(from_nul[i + 1]))) return false;
  }
  return true;
}

void Utf16Input::Unit(unsigned unit, std::string* out) {
  if (high_ != 0) {
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      AppendUtf8(0x10000 + ((high_ - 0xd800) << 10) + (unit - 0xdc00), out);
      high_ = 0;
      return;
    }
    AppendUtf8(kReplacement, out);  // a high surrogate with no low half after it
    high_ = 0;
  }
  if (unit >= 0xd800 && unit <= 0xdbff) {
    high_ = unit;
  } else if (unit >= 0xdc00 && unit <= 0xdfff) {
    AppendUtf8(kReplacement, out);  // a low surrogate alone
  } else {
    AppendUtf8(unit, out);
  }
}

void Utf16Input::Feed(std::string_view data, std::string* out) {
  if (data.empty()) return;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size(), i = 0;
  const bool little = order_ == Order::kLittle;
  if (odd_ >= 0) {
    const unsigned first = static_cast<unsigned>(odd_);
    odd_ = -1;
    Unit(little ? (first | (unsigned{p[0]} << 8)) : ((first << 8) | p[0]), out);
    i = 1;
  }
  out->reserve(out->size() + (n - i) / 2 + 16);
  for (; i + 1 < n; i += 2) {
    const unsigned unit = little ? (p[i] | (unsigned{p[i + 1]} << 8)) : ((unsigned{p[i]} << 8) | p[i + 1]);
    if (unit < 0x80 && high_ == 0) {
      out->push_back(static_cast<char>(unit));  // ASCII, nearly every unit of a log
    } else {
      Unit(unit, out);
    }
  }
  if (i < n) odd_ = p[i];
}

void Utf16Input::Finish(std::string* out) {
  if (high_ != 0) AppendUtf8(kReplacement, out);
  high_ = 0;
  if (odd_ >= 0) AppendUtf8(kReplacement, out);
  odd_ = -1;
}

}  // namespace triage
