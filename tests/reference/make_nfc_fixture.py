#!/usr/bin/python3
"""Writes tests/fixtures/hf/nfc_cases.json: strings and their NFC by Debian's Python 3.11
unicodedata.normalize (Unicode 14.0), the independent answer for the core's NFC (cpp/io/hf_tokenizer.cpp,
unicode::nfc; the NFC normalizer of Qwen2's tokenizer.json).

    /usr/bin/python3 tests/reference/make_nfc_fixture.py

cases: [text, NFC(text)] for hand-picked strings (precomposed and decomposed Latin, Vietnamese with
its stacked marks in either order, polytonic Greek, Hangul syllables and conjoining jamo, singletons,
composition exclusions, non-starter decompositions, two-part Indic vowels, emoji sequences) and seeded
random ones (a base then 0 to 5 combining marks drawn from every mark of non-zero combining class;
precomposed letters with their marks shuffled; random Hangul jamo runs).

after_unicode_9: the code points with normalization data (a non-zero combining class, a canonical
decomposition, or a place in one) that were assigned after Unicode 9.0, by the Age property of Perl's
Unicode::UCD (Debian perl-modules, also Unicode 14.0). Hugging Face's tokenizers normalize with the
Rust crate unicode-normalization-alignments, whose tables are Unicode 9.0's: probing every decomposable
character and every combining mark through it (tokenizers 0.23.2) differs from Python only for
strings holding one of these (e.g. U+07FD, Unicode 11, is a starter there). A test comparing with HF
leaves out the strings that hold one.
Deterministic: running it twice writes the same bytes.
"""
import json
import os
import random
import subprocess
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'fixtures', 'hf', 'nfc_cases.json')
NFD = lambda s: unicodedata.normalize('NFD', s)  # noqa: E731

HAND = [
    'café', 'cafe\u0301', 'Å Å Å', 'ñ n\u0303 N\u0303', 'Ǖ U\u0308\u0304 Ü\u0304',
    'ự u\u031b\u0323 u\u0323\u031b ư\u0323 ụ\u031b',
    'Tiếng Việt có dấu: Mỗi vị trí nhìn thấy toàn bộ chuỗi.',
    'a\u0323\u0302 a\u0302\u0323 ậ ầ\u0323 ạ\u0302',
    'ᾅ α\u0314\u0301\u0345 α\u0345\u0314\u0301 ἅ\u0345',
    'Ἀθῆναι καὶ ἡ Ἑλλάς',
    '한국어 어텐션', '\u1100\u1161\u11a8 \u1100\u1161 \u1100\u1100\u1161 \u1161\u11a8 \uac00\u11a8 \uac01\u11a8',
    '\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165', 'ㄱㅏ ᄀ ᅡ ᆨ',
    '\u212b \u2126 \u212a \uf900 \u2000 \u0340\u0341 e\u0340',
    '\u0958 \u0915\u093c \ufb1d \u05d9\u05b4 \u2adc \u1d15e \U0001d15e',
    '\u0344 \u0308\u0301 \u0f73 \u0f71\u0f72 a\u0344',
    '\u09c7\u09be \u09cb \u0b47\u0b3e \u0bc6\u0bbe \u0dd9\u0dcf \u0d46\u0d3e',
    '\u1b05\u1b35 \u1b06', '\u3099 か\u3099 が は\u309a ぱ',
    '👍🏽 👨\u200d👩\u200d👧 1\ufe0f\u20e3 ❤️ 🇫🇷 🦙',
    'e\u0301\u0301\u0301 e\u0327\u0301 e\u0301\u0327 ȩ\u0301 ḝ',
    'A\u030a\u0323 Å\u0323 Ạ\u030a', 'o\u031b\u0309 ở', 'z\u0335\u0301',
    '', 'plain ascii text', '\u0301 a leading mark', 'x\u0345\u0301\u0300\u0316',
    'ǰ j\u030c', 'Ḯ I\u0308\u0301 Ï\u0301', '\u0390 ΐ \u03b9\u0308\u0301',
    '\u00c5\u0301 \u01fa', '\u1e9b\u0323 ẛ̣', 'ﬁ ﬀ ① ² ㌀',
]

LATIN = 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩ' \
    'ǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜḀḁḂḃḄḅḈḉḔḕḖḗḜḝṤṥṦṧṨṩẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặẸẹẺẻẼẽẾếỀềỂểỄễỆệỈỉỊịỌọỎỏ' \
    'ỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợỤụỦủỨứỪừỬửỮữỰựỲỳỴỵỶỷỸỹἀἁἂἃἄἅἆἇᾀᾁᾂᾃᾄᾅᾆᾇῶῷ'
BASES = 'aeiouyAEOUnNcszkwgGhrt ' + 'αεηιουωΑΕΩ' + 'аеиоуАЕИ' + 'あかはカハ' + '\u0915\u09c7\u0b47\u0bc6' + '가각\u1100\u1161' + '字1.-'


def marks():
    return [cp for cp in range(0x300, 0x110000) if unicodedata.combining(chr(cp))]


def random_cases(rng):
    ms = marks()
    common = [0x301, 0x300, 0x302, 0x303, 0x308, 0x30a, 0x323, 0x327, 0x328, 0x31b, 0x345, 0x314, 0x313, 0x309]
    out = []
    for _ in range(200):  # bases then marks (a third of them common ones, which compose)
        s = ''
        for _ in range(rng.randint(1, 4)):
            s += rng.choice(BASES)
            for _ in range(rng.randint(0, 5)):
                s += chr(rng.choice(common) if rng.random() < 0.35 else rng.choice(ms))
        out.append(s)
    for _ in range(60):  # precomposed letters, decomposed with the marks shuffled, and extra marks
        s = ''
        for _ in range(rng.randint(1, 6)):
            c = rng.choice(LATIN)
            d = list(NFD(c))
            tail = d[1:] + [chr(rng.choice(common)) for _ in range(rng.randint(0, 2))]
            rng.shuffle(tail)
            s += rng.choice([c, d[0]]) + ''.join(tail) if rng.random() < 0.5 else c
        out.append(s)
    for _ in range(40):  # conjoining jamo runs, syllables with trailing jamo
        s = ''
        for _ in range(rng.randint(1, 8)):
            r = rng.random()
            if r < 0.3:
                s += chr(0x1100 + rng.randrange(19))
            elif r < 0.6:
                s += chr(0x1161 + rng.randrange(21))
            elif r < 0.8:
                s += chr(0x11a7 + rng.randrange(28))  # 0x11A7 itself is no trailing consonant
            else:
                s += chr(0xac00 + rng.randrange(11172))
        out.append(s)
    return out


def normalization_code_points():
    cps = set()
    for cp in range(0x110000):
        c = chr(cp)
        if unicodedata.combining(c):
            cps.add(cp)
        d = unicodedata.decomposition(c)
        if d and not d.startswith('<'):
            cps.add(cp)
            cps.update(int(h, 16) for h in d.split())
    return sorted(cps)


def after_unicode_9(cps):
    ages = subprocess.run(
        ['perl', '-MUnicode::UCD=charprop', '-e', 'while (<STDIN>) { chomp; print charprop(hex($_), "age"), "\\n" }'],
        input='\n'.join('%x' % c for c in cps), capture_output=True, text=True, check=True).stdout.split()
    assert len(ages) == len(cps)
    old = {'V%d_%d' % (a, b) for a in range(1, 10) for b in range(4)}
    return [c for c, a in zip(cps, ages) if a not in old]


def main():
    rng = random.Random(26)
    texts = HAND + [NFD(t) for t in HAND[6:10]] + random_cases(rng)
    cases = [[t, unicodedata.normalize('NFC', t)] for t in texts]
    late = after_unicode_9(normalization_code_points())
    doc = {
        'generator': 'tests/reference/make_nfc_fixture.py (Python %s unicodedata, Unicode %s)' %
                     (sys.version.split()[0], unicodedata.unidata_version),
        'after_unicode_9': late,
    }
    lines = ['{'] + ['  %s: %s,' % (json.dumps(k), json.dumps(v)) for k, v in doc.items()]
    lines.append('  "cases": [')
    lines.append(',\n'.join('    ' + json.dumps(c) for c in cases))
    lines += ['  ]', '}', '']
    with open(OUT, 'w') as f:
        f.write('\n'.join(lines))
    changed = sum(a != b for a, b in cases)
    print('wrote tests/fixtures/hf/nfc_cases.json: %d cases (%d changed by NFC), %d code points after Unicode 9.0' %
          (len(cases), changed, len(late)))


main()
