#!/usr/bin/python3
"""Writes cpp/io/unicode_tables.cpp: the Unicode data the Hugging Face tokenizers need
(cpp/io/hf_tokenizer.cpp), from Debian's Python's unicodedata (Python 3.11: Unicode 14.0).

    /usr/bin/python3 tests/reference/make_unicode_tables.py

Tables (all sorted, looked up by binary search):
  kCategoryRuns     one uint32 per run of code points of the same class, start << 3 | class
                    (class: see unicode_tables.hpp), covering 0..0x10FFFF.
  kLowerRuns        triples (start, count << 1 | stride-2 flag, delta as uint32): code points
                    start, start + stride, ... map to cp + delta (Python's one-character
                    str.lower(), i.e. Rust's char::to_lowercase for single-code-point results).
  kLowerSpecial     pairs (cp, index into kLowerPool): the multi-code-point lowercasings (U+0130).
  kDecompKeys/Vals  full canonical decompositions (NFD, Hangul excluded: done by formula):
                    key cp, value offset << 3 | length into kDecompPool.
  kCombiningRuns    one uint32 per run of code points of the same canonical combining class,
                    start << 8 | class, covering 0..0x10FFFF (NFC's canonical ordering).
  kCompose          triples (first, second, composite) sorted by (first, second): the primary
                    composites, i.e. the two-character canonical decompositions whose composite
                    is not excluded from composition (Hangul excluded: done by formula). Python
                    does not publish CompositionExclusions.txt; the full exclusion set (singletons,
                    non-starter decompositions and the listed exclusions) is exactly the characters
                    whose NFC is not themselves, so a pair is kept when NFC(composite) == composite.
"""
import os
import unicodedata

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'cpp', 'io', 'unicode_tables.cpp')
MAXCP = 0x110000

# Classes; keep in sync with unicode_tables.hpp.
OTHER, LETTER, NUMBER, PUNCT, MARK_NONSPACING, CONTROL, UNASSIGNED = range(7)


def cls(cp):
    cat = unicodedata.category(chr(cp))
    if cat[0] == 'L':
        return LETTER
    if cat[0] == 'N':
        return NUMBER
    if cat[0] == 'P':
        return PUNCT
    if cat == 'Mn':
        return MARK_NONSPACING
    if cat == 'Cn':
        return UNASSIGNED
    if cat[0] == 'C':  # Cc Cf Cs Co
        return CONTROL
    return OTHER


def category_runs():
    runs = []
    prev = None
    for cp in range(MAXCP):
        c = cls(cp)
        if c != prev:
            runs.append(cp << 3 | c)
            prev = c
    return runs


def lower_tables():
    single = []
    special = []
    for cp in range(MAXCP):
        if 0xD800 <= cp < 0xE000:
            continue
        low = chr(cp).lower()
        if low == chr(cp):
            continue
        if len(low) == 1:
            single.append((cp, ord(low) - cp))
        else:
            special.append((cp, [ord(c) for c in low]))
    runs = []  # [start, count, stride, delta]
    for cp, d in single:
        if runs:
            r = runs[-1]
            last = r[0] + (r[1] - 1) * r[2]
            if r[3] == d:
                if r[1] == 1 and cp - last in (1, 2):
                    r[2] = cp - last
                    r[1] += 1
                    continue
                if r[1] > 1 and cp - last == r[2]:
                    r[1] += 1
                    continue
        runs.append([cp, 1, 1, d])
    return runs, special


def full_decomposition(cp):
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith('<'):
        return [cp]
    out = []
    for h in d.split():
        out.extend(full_decomposition(int(h, 16)))
    return out


def decompositions():
    out = []
    for cp in range(MAXCP):
        if 0xAC00 <= cp <= 0xD7A3:
            continue
        d = full_decomposition(cp)
        if d != [cp]:
            assert len(d) <= 7
            out.append((cp, d))
    return out


def combining_runs():
    runs = []
    prev = None
    for cp in range(MAXCP):
        c = unicodedata.combining(chr(cp))
        if c != prev:
            runs.append(cp << 8 | c)
            prev = c
    return runs


def compositions():
    out = []
    for cp in range(MAXCP):
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith('<'):
            continue
        parts = [int(h, 16) for h in d.split()]
        if len(parts) == 2 and unicodedata.normalize('NFC', chr(cp)) == chr(cp):
            out.append((parts[0], parts[1], cp))
    out.sort()
    return out


def fmt(name, ctype, values, per_line=8, hexa=True):
    lines = []
    for i in range(0, len(values), per_line):
        chunk = values[i:i + per_line]
        lines.append('    ' + ', '.join(('0x%x' % v) if hexa else str(v) for v in chunk) + ',')
    return 'const %s %s[] = {\n%s\n};\nconst int %sSize = %d;\n' % (ctype, name, '\n'.join(lines), name, len(values))


def main():
    cats = category_runs()
    lruns, lspecial = lower_tables()
    decomp = decompositions()
    ccc = combining_runs()
    comp = compositions()
    lower_flat = []
    for start, count, stride, delta in lruns:
        lower_flat += [start, count << 1 | (1 if stride == 2 else 0), delta & 0xFFFFFFFF]
    pool = []
    special_flat = []
    for cp, low in lspecial:
        special_flat += [cp, len(pool) << 3 | len(low)]
        pool += low
    dkeys, dvals, dpool = [], [], []
    assert sum(len(d) for _, d in decomp) < 8192  # kDecompVals is uint16: offset << 3 | length
    for cp, d in decomp:
        dkeys.append(cp)
        dvals.append(len(dpool) << 3 | len(d))
        dpool += d
    body = [
        '// Generated by tests/reference/make_unicode_tables.py from Python %s unicodedata (Unicode %s).'
        % (__import__('sys').version.split()[0], unicodedata.unidata_version),
        '// Do not edit: re-run the script.',
        '#include "io/unicode_tables.hpp"',
        '',
        '// clang-format off',
        '',
        'namespace ap {',
        'namespace unicode {',
        '',
        fmt('kCategoryRuns', 'uint32_t', cats),
        fmt('kLowerRuns', 'uint32_t', lower_flat, 9),
        fmt('kLowerSpecial', 'uint32_t', special_flat),
        fmt('kLowerPool', 'uint32_t', pool),
        fmt('kDecompKeys', 'uint32_t', dkeys),
        fmt('kDecompVals', 'uint16_t', dvals),
        fmt('kDecompPool', 'uint32_t', dpool),
        fmt('kCombiningRuns', 'uint32_t', ccc),
        fmt('kCompose', 'uint32_t', [v for t in comp for v in t], 9),
        '// clang-format on',
        '}  // namespace unicode',
        '}  // namespace ap',
        '',
    ]
    with open(OUT, 'w') as f:
        f.write('\n'.join(body))
    print('wrote cpp/io/unicode_tables.cpp: %d category runs, %d lowercase runs (+%d special), %d decompositions (%d code points), '
          '%d combining-class runs, %d compositions' %
          (len(cats), len(lruns), len(lspecial), len(decomp), len(dpool), len(ccc), len(comp)))


main()
