"""The generated corpora of notebook 12: repeated random sequences (induction) and bilingual
templated sentences (Winograd twins, she / he agreement, and a polysemous word per language).

Everything is produced by code from a seed: no downloads. Sentences are word-level token lists
(Chinese words are tokens too: 奖杯 箱子 它). The coreference model is an ENCODER: it reads the whole
sentence and answers at the position of the word asked about (the pronoun, bank / 杜鹃):

    the trophy didn't fit in the suitcase because it was too big       at "it" -> trophy
    奖杯 放不进 箱子 ， 因为 它 太 小 了                                  at "它" -> 箱子
    tom saw the ducks at the bank                                      at "bank" -> river

The fit and carry families also come with ROLE-CROSSING twins, in which a noun's class no longer tells
its role (a bag put into a drawer, a puppy that carries a dog), so that only the role predicts the answer.

Held out (never trained on): whole frames (new word orders and combinations), a seeded fifth of the
noun pairs of every family and of every kind of role crossing (plus the crossings the notebook shows),
bank / 杜鹃 sentences whose cue word never appeared beside it, and the seeds' own sentences. Every word
of a test sentence appears somewhere in training.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.teaching.i18n import LANGUAGES

CORPUS_VERSION = "nb12-corpora-2"               # the induction corpus
# the coreference corpus: 2.1 with the cuckoo's cue words corrected (啼叫 and 飞来 replace 筑巢 and 孵蛋: the
# cuckoo builds no nest and sits on no eggs, it lays them in other birds' nests); 2.2 adds the role-crossing
# twins of fit and carry (CROSSINGS), part of them held out (the role swaps the notebook measures); 2.3 says
# "{y} 挡住 了 {x}" (a street or a river blocks the way) where 2.2 had the unnatural "{y} 拦住 了 {x}"
COREFERENCE_VERSION = "nb12-corpora-2.3"


def corpus_version(kind: str) -> str:
    """The corpus version a model of this kind ("induction" or "coreference") was trained on."""
    if kind not in ("induction", "coreference"):
        raise ValueError(f"kind: expected 'induction' or 'coreference', got {kind!r}")
    return CORPUS_VERSION if kind == "induction" else COREFERENCE_VERSION

SEP = "|"

# --- induction --------------------------------------------------------------------------------
INDUCTION_VOCAB = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")      # 26 tokens with no meaning at all
INDUCTION_LEN = 24                                          # T of every training sequence


def induction_batch(rng: np.random.Generator, batch: int, length: int = INDUCTION_LEN,
                    min_half: int = 4, max_half: int | None = None) -> np.ndarray:
    """(B, T) ids: random tokens, with a segment of n distinct tokens written twice at RANDOM places.

    Per row: n (min_half .. max_half, default T // 2), a gap g >= 0 between the copies and a start s
    of the first copy, all random, so the second copy can lie anywhere in the window (early or late)
    and the repeat cannot be found by position: predicting the second copy needs "find the earlier
    occurrence of my token and copy what came next", the induction pattern. (Corpus 1 put the repeat
    at the end of every window; the circuit it grew worked only at late positions.)
    """
    v = len(INDUCTION_VOCAB)
    max_half = length // 2 if max_half is None else max_half
    out = rng.integers(0, v, (batch, length))
    for row in out:
        n = int(rng.integers(min_half, max_half + 1))
        seg = rng.permutation(v)[:n]                        # n distinct tokens
        gap = int(rng.integers(0, length - 2 * n + 1))
        start = int(rng.integers(0, length - 2 * n - gap + 1))
        row[start:start + n] = seg
        row[start + n + gap:start + 2 * n + gap] = seg
    return out


def placed_repeats(rng: np.random.Generator, batch: int, length: int, half: int, second: int,
                   first: int | None = None) -> np.ndarray:
    """(B, length) test sequences: `half` distinct random tokens at `first` (default second - half) and
    again at `second`; every other place holds random tokens NOT in the segment (so the only earlier
    occurrence of a token of the second copy is its own first copy)."""
    v = len(INDUCTION_VOCAB)
    first = second - half if first is None else first
    if not (0 <= first and first + half <= second and second + half <= length):
        raise ValueError(f"placed_repeats: copies at {first} and {second} of {half} tokens do not fit "
                         f"in {length} (expected 0 <= first, first + half <= second, second + half <= length)")
    out = np.empty((batch, length), dtype=np.int64)
    for row in out:
        perm = rng.permutation(v)
        seg, rest = perm[:half], perm[half:]
        row[:] = rng.choice(rest, length)
        row[first:first + half] = seg
        row[second:second + half] = seg
    return out


def random_repeats(rng: np.random.Generator, batch: int, length: int, min_half: int = 4,
                   max_half: int | None = None):
    """Test sequences in the training layout (copies of random length at random places, filler not in
    the segment): (ids (B, length), first (B,), second (B,), half (B,))."""
    max_half = length // 2 if max_half is None else max_half
    rows, meta = [], []
    for _ in range(batch):
        n = int(rng.integers(min_half, max_half + 1))
        gap = int(rng.integers(0, length - 2 * n + 1))
        first = int(rng.integers(0, length - 2 * n - gap + 1))
        rows.append(placed_repeats(rng, 1, length, n, first + n + gap, first)[0])
        meta.append((first, first + n + gap, n))
    first, second, half = (np.array(c) for c in zip(*meta))
    return np.stack(rows), first, second, half


def repeated_sequences(rng: np.random.Generator, batch: int, half: int = INDUCTION_LEN // 2) -> np.ndarray:
    """(B, 2 * half) fresh test sequences: `half` distinct random tokens, then the same tokens again."""
    v = len(INDUCTION_VOCAB)
    seg = np.stack([rng.permutation(v)[:half] for _ in range(batch)])      # (B, half)
    return np.concatenate([seg, seg], axis=1)                               # (B, 2 * half)


# --- coreference and context, both languages (corpus 2: an encoder reads the whole sentence) -------
# Each Winograd family pairs two roles (x, y) and two classes of adjective: an adjective of class 0 makes
# the pronoun mean x, one of class 1 makes it mean y. The twin of a sentence changes only the adjective.
# Which class goes with which role is knowledge about the world (tired animals, wide streets; big
# contents, small containers; weak carriers, heavy loads), not grammar: in "fit" both nouns are things,
# in "carry" both are animals, so "the animate noun" cannot be the rule.
ANIMALS = {"en": ("animal", "dog", "cat", "horse", "cow", "fox"), "zh": ("动物", "狗", "猫", "马", "牛", "狐狸")}
PLACES = {"en": ("street", "road", "river", "bridge", "field", "square"),
          "zh": ("马路", "街道", "河", "桥", "田野", "广场")}
CONTENTS = {"en": ("trophy", "ball", "book", "toy", "lamp", "melon"),
            "zh": ("奖杯", "球", "书", "玩具", "台灯", "西瓜")}
CONTAINERS = {"en": ("suitcase", "bag", "drawer", "basket", "box", "cupboard"),
              "zh": ("箱子", "书包", "抽屉", "篮子", "盒子", "柜子")}
CARRIERS = {"en": ("dog", "cat", "horse", "cow"), "zh": ("狗", "猫", "马", "牛")}
YOUNG = {"en": ("puppy", "kitten", "lamb", "chick"), "zh": ("小狗", "小猫", "小羊", "小鸡")}
# the distractor noun of some frames: a thing (en) or a person who owns the x (zh), never the answer
DISTRACTORS = {"en": ("collar", "ribbon", "bell", "label"), "zh": ("小明", "小红", "小刚", "小丽")}
ANIMATE_WORDS = {lang: set(ANIMALS[lang]) | set(CARRIERS[lang]) | set(YOUNG[lang]) for lang in LANGUAGES}

FAMILIES = {
    "cross": {"x": ANIMALS, "y": PLACES,
              "adj": {"en": (("tired", "sleepy", "hungry", "scared"), ("wide", "busy", "long", "muddy")),
                      "zh": (("累", "困", "饿", "害怕"), ("宽", "挤", "长", "滑"))}},
    "fit": {"x": CONTENTS, "y": CONTAINERS,
            "adj": {"en": (("big", "large", "tall", "thick"), ("small", "tiny", "narrow", "full")),
                    "zh": (("大", "高", "粗", "厚"), ("小", "窄", "矮", "满"))}},
    "carry": {"x": CARRIERS, "y": YOUNG,
              "adj": {"en": (("weak", "old"), ("heavy", "fat")), "zh": (("弱", "老"), ("重", "胖"))}},
}
# (frame, held out?): held-out frames are whole new word orders or combinations, never trained on. Corpus 2.2
# adds the last frames of fit and carry (trained): once classes cross roles, the answer depends on which noun is
# the subject of which verb (fit in / hold, carry / lift), so every main clause of these two families is trained
# with the reason clause first and last, with and without the distractor, in some wording; the held-out frames
# stay new combinations of a main clause and a reason clause
FRAMES = {
    ("cross", "en"): (("the {x} didn't cross the {y} because it was too {adj}", False),
                      ("the {x} could not reach the {y} because it was too {adj}", False),
                      ("the {y} stopped the {x} because it was too {adj}", False),
                      ("because it was too {adj} , the {x} didn't cross the {y}", False),
                      ("the {x} with the {d} avoided the {y} since it was very {adj}", False),
                      ("because it was very {adj} , the {y} stopped the {x}", True),
                      ("the {x} with the {d} could not reach the {y} because it was too {adj}", True)),
    ("fit", "en"): (("the {x} didn't fit in the {y} because it was too {adj}", False),
                    ("the {y} could not hold the {x} because it was too {adj}", False),
                    ("because it was too {adj} , the {x} didn't fit in the {y}", False),
                    ("the {x} with the {d} didn't fit in the {y} since it was very {adj}", False),
                    ("because it was very {adj} , the {y} could not hold the {x}", True),
                    ("the {y} with the {d} could not hold the {x} because it was too {adj}", True),
                    ("because it was too {adj} , the {y} could not hold the {x}", False),
                    ("the {y} with the {d} could not hold the {x} since it was very {adj}", False),
                    ("since it was very {adj} , the {x} with the {d} didn't fit in the {y}", False),
                    ("since it was very {adj} , the {y} with the {d} could not hold the {x}", False)),
    ("carry", "en"): (("the {x} couldn't carry the {y} because it was too {adj}", False),
                      ("the {x} could not lift the {y} because it was too {adj}", False),
                      ("because it was too {adj} , the {x} couldn't carry the {y}", False),
                      ("the {x} with the {d} could not lift the {y} since it was very {adj}", False),
                      ("because it was very {adj} , the {x} could not lift the {y}", True),
                      ("the {x} with the {d} couldn't carry the {y} because it was too {adj}", True),
                      ("since it was very {adj} , the {x} with the {d} could not lift the {y}", False),
                      ("because it was too {adj} , the {x} with the {d} couldn't carry the {y}", False)),
    ("cross", "zh"): (("{x} 没有 过 {y} ， 因为 它 太 {adj} 了", False),
                      ("{x} 没能 走过 {y} ， 因为 它 太 {adj} 了", False),
                      ("{y} 挡住 了 {x} ， 因为 它 太 {adj} 了", False),
                      ("因为 它 太 {adj} 了 ， {x} 没有 过 {y}", False),
                      ("{d} 的 {x} 绕开 了 {y} ， 因为 它 非常 {adj}", False),
                      ("因为 它 非常 {adj} ， {y} 挡住 了 {x}", True),
                      ("{d} 的 {x} 没能 走过 {y} ， 因为 它 太 {adj} 了", True)),
    ("fit", "zh"): (("{x} 放不进 {y} ， 因为 它 太 {adj} 了", False),
                    ("{y} 装不下 {x} ， 因为 它 太 {adj} 了", False),
                    ("因为 它 太 {adj} 了 ， {x} 放不进 {y}", False),
                    ("{d} 的 {x} 放不进 {y} ， 因为 它 非常 {adj}", False),
                    ("因为 它 非常 {adj} ， {y} 装不下 {x}", True),
                    ("{d} 的 {y} 装不下 {x} ， 因为 它 太 {adj} 了", True),
                    ("因为 它 太 {adj} 了 ， {y} 装不下 {x}", False),
                    ("{d} 的 {y} 装不下 {x} ， 因为 它 非常 {adj}", False),
                    ("因为 它 非常 {adj} ， {d} 的 {x} 放不进 {y}", False),
                    ("因为 它 太 {adj} 了 ， {d} 的 {y} 装不下 {x}", False),
                    ("因为 它 非常 {adj} ， {x} 放不进 {y}", False)),
    ("carry", "zh"): (("{x} 背不动 {y} ， 因为 它 太 {adj} 了", False),
                      ("{x} 叼不动 {y} ， 因为 它 太 {adj} 了", False),
                      ("因为 它 太 {adj} 了 ， {x} 背不动 {y}", False),
                      ("{d} 的 {x} 叼不动 {y} ， 因为 它 非常 {adj}", False),
                      ("因为 它 非常 {adj} ， {x} 叼不动 {y}", True),
                      ("{d} 的 {x} 背不动 {y} ， 因为 它 太 {adj} 了", True),
                      ("因为 它 太 {adj} 了 ， {d} 的 {x} 叼不动 {y}", False),
                      ("因为 它 非常 {adj} ， {d} 的 {x} 背不动 {y}", False),
                      ("因为 它 非常 {adj} ， {x} 背不动 {y}", False)),
}
IT_PRONOUN = {"en": "it", "zh": "它"}
WINOGRAD = tuple(FAMILIES)                     # the kinds whose twins need knowledge of the world

# she / he: the answer follows grammatical gender, not knowledge (kept apart: "agreement", not Winograd)
FEMALE = {"en": ("mary", "anna", "lucy", "emma"), "zh": ("小红", "小丽", "小芳", "小美")}
MALE = {"en": ("tom", "john", "mike", "jack"), "zh": ("小明", "小刚", "小强", "小伟")}
SHE = {"en": "she", "zh": "她"}
HE = {"en": "he", "zh": "他"}
PERSON_FRAMES = {
    "en": ("{x} gave the book to {y} because {pron} {tail}",
           "{x} called {y} because {pron} {tail}",
           "{x} waited for {y} because {pron} {tail}"),
    "zh": ("{x} 把 书 递给 {y} ， 因为 {pron} {tail}",
           "{x} 给 {y} 打 电话 ， 因为 {pron} {tail}",
           "{x} 在 等 {y} ， 因为 {pron} {tail}"),
}
PERSON_TAILS = {"en": ("wanted to help", "was busy", "was late"),
                "zh": ("想 帮忙", "想 看", "很 忙", "迟到 了")}

# one polysemous word per language: English bank (money / river), Chinese 杜鹃 (the cuckoo, a bird, or
# the azalea, a flower: 杜鹃飞走了 / 杜鹃开花了). 银行 has no river sense in Chinese, so it is not used.
POLYSEME = {"en": "bank", "zh": "杜鹃"}
BANK = POLYSEME                                 # the old name
SENSES = {"en": ("money", "river"), "zh": ("鸟", "花")}
SENSE_CUES = {"en": (("cashier", "loans", "coins", "savings", "money", "clerk"),
                     ("ducks", "fish", "boats", "reeds", "frogs", "swans")),
              "zh": (("飞走", "叫", "下蛋", "啼叫", "飞来", "飞回来"),
                     ("开花", "凋谢", "枯萎", "发芽", "盛开", "结籽"))}
HELD_OUT_CUES = {"en": ("money", "clerk", "frogs", "swans"), "zh": ("飞来", "飞回来", "盛开", "结籽")}
# the polysemous word sits at the same position in every frame of a language, so that its embedding
# (word + position) is identical in every sentence
POLY_FRAMES = {"en": (("{s} saw the {cue} at the bank", False), ("{s} took the {cue} to the bank", False),
                      ("{s} found the {cue} near the bank", False), ("{s} saw the {cue} near the bank", True)),
               "zh": (("{s} 看见 杜鹃 {cue} 了", False), ("{s} 说 杜鹃 {cue} 了", False),
                      ("{s} 听说 杜鹃 {cue} 了", False), ("{s} 发现 杜鹃 {cue} 了", True))}
# lexicon sentences teach what each cue word is about, asked at the cue itself (every cue, held out or not)
LEXICON_FRAMES = {"en": ("{s} saw the {cue}", "{s} found the {cue}"),
                  "zh": ("{s} 说 它 {cue} 了", "{s} 发现 它 {cue} 了")}
NAMES = {lang: FEMALE[lang] + MALE[lang] for lang in LANGUAGES}

# the seeds' own sentences are always held out: the model never trains on them
SEED_TWINS = {("cross", "en", 0, "animal", "street", 0), ("cross", "zh", 0, "动物", "马路", 0),
              ("fit", "en", 0, "trophy", "suitcase", 0), ("fit", "zh", 0, "奖杯", "箱子", 0),
              ("person", "zh", 0, "小红", "小明", "想 帮忙"), ("person", "zh", 0, "小红", "小明", "想 看")}
SEED_SENTENCES = {"en": ("the animal didn't cross the street because it was too tired",
                         "the animal didn't cross the street because it was too wide",
                         "the trophy didn't fit in the suitcase because it was too big",
                         "the trophy didn't fit in the suitcase because it was too small"),
                  "zh": ("动物 没有 过 马路 ， 因为 它 太 累 了", "动物 没有 过 马路 ， 因为 它 太 宽 了",
                         "奖杯 放不进 箱子 ， 因为 它 太 大 了", "奖杯 放不进 箱子 ， 因为 它 太 小 了")}


@dataclass(frozen=True)
class Example:
    """One training / test sentence: the model reads `tokens` and answers at `tokens[position]`."""
    tokens: tuple          # the sentence, word by word
    query: str             # the word asked about (a pronoun, bank / 杜鹃, or a cue word)
    answer: str            # what the model must predict at the query's position
    lang: str              # "en" or "zh"
    kind: str              # "cross", "fit", "carry" (Winograd), "person" (she / he), "bank", "lexicon"
    twin: tuple            # the id of its twin group (the unit of the held-out split)
    position: int = -1     # index of the query word in tokens
    nouns: tuple = ()      # the nouns of the sentence in order (for the baselines)
    adj: str = ""          # the adjective that decides the answer (Winograd kinds)
    held_out_frame: bool = False   # the sentence's frame is never trained on
    held_out_cue: bool = False     # its cue word never appears beside bank / 杜鹃 in training
    crossed: bool = False          # a role-crossing twin: a noun's class does not tell its role (CROSSINGS)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def model_input(self) -> tuple:
        """The tokens the model reads (the encoder reads the sentence itself)."""
        return self.tokens


def _noun_order(tokens, *nouns) -> tuple:
    return tuple(sorted(nouns, key=lambda n: tokens.index(n)))


def _winograd_examples(family: str, lang: str):
    fam = FAMILIES[family]
    pron = IT_PRONOUN[lang]
    adjs = fam["adj"][lang]
    for f, (frame, held) in enumerate(FRAMES[family, lang]):
        for i, x in enumerate(fam["x"][lang]):
            for j, y in enumerate(fam["y"][lang]):
                if x == y:
                    continue
                d = DISTRACTORS[lang][(i + j) % len(DISTRACTORS[lang])]
                for k, (adj_x, adj_y) in enumerate(zip(*adjs)):
                    twin = (family, lang, f, x, y, k)
                    for adj, answer in ((adj_x, x), (adj_y, y)):
                        toks = tuple(frame.format(x=x, y=y, d=d, adj=adj).split())
                        nouns = _noun_order(toks, x, y, *([d] if "{d}" in frame else []))
                        yield Example(toks, pron, answer, lang, family, twin, toks.index(pron), nouns, adj, held)


# Role-crossing twins: in the plain families a noun's class always coincides with its role (the thing that does
# not fit is a content noun, the carrier a grown animal), so "adjective class -> the noun of that class" would
# answer them all. These twins put nouns of one class in both roles, or a young animal in the carrier's role:
#     "the bag didn't fit in the drawer because it was too big"  -> bag (the thing that does not fit)
#     "the puppy couldn't carry the dog because it was too weak" -> puppy (the weak carrier)
# family -> ((name, pool of the x role, pool of the y role, adjective pairs k used), ...). Adjective pairs that
# would read oddly are left out: a container that is 粗 (fit, k = 2), a puppy that is too old (carry, k = 1).
CROSSINGS = {
    "fit": (("container in container", "y", "y", (0, 1, 3)),),
    "carry": (("young carries grown", "y", "x", (0,)), ("grown carries grown", "x", "x", (0, 1)),
              ("young carries young", "y", "y", (0,))),
}
ROLE_SWAP_POOLS = {family: kinds[0][1:3] for family, kinds in CROSSINGS.items()}     # the old name (first kind)
# the crossings the notebook shows: always held out (every frame), so the model never trained on them
SHOWN_SWAPS = {("fit", "en", "bag", "drawer"), ("carry", "en", "puppy", "dog"),
               ("fit", "zh", "书包", "抽屉"), ("carry", "zh", "小狗", "狗")}


def _crossing_examples(family: str, lang: str):
    fam = FAMILIES[family]
    pron = IT_PRONOUN[lang]
    adjs = fam["adj"][lang]
    for f, (frame, held) in enumerate(FRAMES[family, lang]):
        for c, (_, px, py, ks) in enumerate(CROSSINGS[family]):
            for i, x in enumerate(fam[px][lang]):
                for j, y in enumerate(fam[py][lang]):
                    if x == y:
                        continue
                    d = DISTRACTORS[lang][(i + j) % len(DISTRACTORS[lang])]
                    for k in ks:
                        twin = (family, lang, f, x, y, k, "crossed", c)
                        for adj, answer in ((adjs[0][k], x), (adjs[1][k], y)):
                            toks = tuple(frame.format(x=x, y=y, d=d, adj=adj).split())
                            nouns = _noun_order(toks, x, y, *([d] if "{d}" in frame else []))
                            yield Example(toks, pron, answer, lang, family, twin, toks.index(pron), nouns, adj, held,
                                          crossed=True)


def _person_examples(lang: str):
    names = [(x, y) for x in FEMALE[lang] for y in MALE[lang]] + [(y, x) for x in FEMALE[lang] for y in MALE[lang]]
    for f, frame in enumerate(PERSON_FRAMES[lang]):
        for x, y in names:
            female, male = (x, y) if x in FEMALE[lang] else (y, x)
            for tail in PERSON_TAILS[lang]:
                twin = ("person", lang, f, x, y, tail)
                for pron, answer in ((SHE[lang], female), (HE[lang], male)):
                    toks = tuple(frame.format(x=x, y=y, pron=pron, tail=tail).split())
                    yield Example(toks, pron, answer, lang, "person", twin, toks.index(pron), (x, y))


def _polysemy_examples(lang: str):
    word = POLYSEME[lang]
    for f, (frame, held) in enumerate(POLY_FRAMES[lang]):
        for s in NAMES[lang]:
            for c in range(len(SENSE_CUES[lang][0])):
                twin = ("bank", lang, f, s, c)      # one cue of each sense: the same frame and subject
                for sense, cues in enumerate(SENSE_CUES[lang]):
                    toks = tuple(frame.format(s=s, cue=cues[c]).split())
                    yield Example(toks, word, SENSES[lang][sense], lang, "bank", twin, toks.index(word),
                                  held_out_frame=held, held_out_cue=cues[c] in HELD_OUT_CUES[lang])


def _lexicon_examples(lang: str):
    for f, frame in enumerate(LEXICON_FRAMES[lang]):
        for s in NAMES[lang]:
            for sense, cues in enumerate(SENSE_CUES[lang]):
                for cue in cues:
                    toks = tuple(frame.format(s=s, cue=cue).split())
                    yield Example(toks, cue, SENSES[lang][sense], lang, "lexicon", ("lexicon", lang, f, s, cue),
                                  toks.index(cue))


def all_examples() -> list[Example]:
    """Every generated sentence, both languages, in a fixed order."""
    out = []
    for lang in LANGUAGES:
        for family in FAMILIES:
            out += list(_winograd_examples(family, lang))
        for family in CROSSINGS:
            out += list(_crossing_examples(family, lang))
        out += list(_person_examples(lang)) + list(_polysemy_examples(lang)) + list(_lexicon_examples(lang))
    return out


@dataclass(frozen=True)
class Split:
    train: tuple
    test: tuple


def _pair_is_held_out(rng_pairs: dict, key, x, y) -> bool:
    return (x, y) in rng_pairs[key]


def coreference_split(seed: int = 0, test_fraction: float = 0.2) -> Split:
    """The held-out set, never trained on: (1) every sentence of a held-out frame (new word orders and
    combinations); (2) in the trained frames of each Winograd family, the sentences of a seeded
    `test_fraction` of the (x, y) noun pairs; (3) she / he: a seeded `test_fraction` of the twins;
    (4) bank / 杜鹃: held-out frames and every sentence whose cue was held out; (5) the seeds' sentences;
    (6) role-crossing twins: held-out frames, a seeded `test_fraction` of the noun pairs of every kind of
    crossing (drawn after everything above, so (1)-(5) are those of corpus 2.1) and SHOWN_SWAPS.
    Lexicon sentences are all trained on."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction: expected a number between 0 and 1, got {test_fraction!r}")
    examples = all_examples()
    rng = np.random.default_rng(seed)
    held_pairs = {}
    for family, fam in FAMILIES.items():
        for lang in LANGUAGES:
            pairs = [(x, y) for x in fam["x"][lang] for y in fam["y"][lang] if x != y]
            order = rng.permutation(len(pairs))
            held_pairs[family, lang] = {pairs[i] for i in order[:int(round(test_fraction * len(pairs)))]}
    person_twins = sorted({ex.twin for ex in examples if ex.kind == "person"}, key=repr)
    order = rng.permutation(len(person_twins))
    held_person = {person_twins[i] for i in order[:int(round(test_fraction * len(person_twins)))]}
    held_crossed = set()
    for family, kinds in CROSSINGS.items():
        fam = FAMILIES[family]
        for lang in LANGUAGES:
            for c, (_, px, py, _) in enumerate(kinds):
                pairs = [(x, y) for x in fam[px][lang] for y in fam[py][lang] if x != y]
                order = rng.permutation(len(pairs))
                held_crossed |= {(family, lang, c) + pairs[i]
                                 for i in order[:int(round(test_fraction * len(pairs)))]}

    def is_test(ex) -> bool:
        if ex.twin in SEED_TWINS:
            return True
        if ex.crossed:
            return (ex.held_out_frame or (ex.kind, ex.lang, ex.twin[7], ex.twin[3], ex.twin[4]) in held_crossed
                    or (ex.kind, ex.lang, ex.twin[3], ex.twin[4]) in SHOWN_SWAPS)
        if ex.kind in FAMILIES:
            return ex.held_out_frame or (ex.twin[3], ex.twin[4]) in held_pairs[ex.kind, ex.lang]
        if ex.kind == "person":
            return ex.twin in held_person
        if ex.kind == "bank":
            return ex.held_out_frame or ex.held_out_cue
        return False

    train = tuple(ex for ex in examples if not is_test(ex))
    test = tuple(ex for ex in examples if is_test(ex))
    return Split(train, test)


# Full-width Latin letters and digits (an IME left in full-width mode: ＴＨＥ, ２) and the ideographic space.
_HALFWIDTH = {c: c - 0xFEE0 for c in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B))}
_HALFWIDTH[0x3000] = 0x20


def halfwidth(text):
    """Typed text in one spelling, as the quiz reads it: full-width Latin letters and digits become ASCII
    (ＴＨＥ -> THE) and the ideographic space a space; Chinese punctuation (，。) stays, the vocabulary has it.
    A list of words is mapped word by word; anything else comes back as it came (the caller names it)."""
    if isinstance(text, str):
        return text.translate(_HALFWIDTH)
    if isinstance(text, (list, tuple)):
        return type(text)(w.translate(_HALFWIDTH) if isinstance(w, str) else w for w in text)
    return text


def coreference_vocab() -> tuple:
    """Every token of every sentence, every answer and the padding `|`, sorted (en before zh by code point)."""
    words = set()
    for ex in all_examples():
        words.update(ex.tokens)
        words.update((ex.query, ex.answer))
    return tuple(sorted(words | {SEP}))         # SEP pads a batch of sentences (the encoder never reads it)


def twins(examples, kind: str | None = None, lang: str | None = None) -> list[tuple]:
    """Pairs (a, b) of examples of the same twin group with different answers (kind "winograd": any of
    the Winograd families)."""
    kinds = WINOGRAD if kind == "winograd" else (None if kind is None else (kind,))
    groups: dict = {}
    for ex in examples:
        if (kinds is None or ex.kind in kinds) and (lang is None or ex.lang == lang):
            groups.setdefault(ex.twin, []).append(ex)
    return [tuple(g) for g in groups.values() if len(g) == 2 and g[0].answer != g[1].answer]


# --- baselines: what simple rules get on the same sentences --------------------------------------------
def _animate_adjectives(lang: str) -> set:
    return set(FAMILIES["cross"]["adj"][lang][0]) | set(FAMILIES["carry"]["adj"][lang][0])


def baseline_answer(ex: Example, rule: str) -> str:
    """The answer of a rule that reads no meaning: "first" (the first noun of the sentence), "last" (the
    last noun), "animate" (an animate adjective such as tired -> the animate noun, any other adjective
    -> the other noun; no single animate noun -> the first noun)."""
    if not ex.nouns:
        raise ValueError(f"baseline_answer: {ex.text!r} has no nouns recorded")
    if rule == "first":
        return ex.nouns[0]
    if rule == "last":
        return ex.nouns[-1]
    if rule == "animate":
        candidates = [n for n in ex.nouns if n not in DISTRACTORS[ex.lang] or ex.kind == "person"]
        alive = [n for n in candidates if n in ANIMATE_WORDS[ex.lang]]
        if len(alive) != 1:
            return candidates[0]
        other = [n for n in candidates if n != alive[0]]
        return alive[0] if ex.adj in _animate_adjectives(ex.lang) else (other[0] if other else alive[0])
    raise ValueError(f"rule: expected 'first', 'last' or 'animate', got {rule!r}")


# --- probes the training never saw: fresh frames from an unused seed, and role swaps ------------------
PROBE_SEED = 2718            # never a training, split, sweep or evaluation seed (tests check it)
# the main clauses and reason clauses the frames are built from; a probe frame is a combination of the
# two (reason last, or reason first) that is NOT one of FRAMES, so no probe sentence is in the corpus
PROBE_MAIN = {
    ("cross", "en"): ("the {x} didn't cross the {y}", "the {x} could not reach the {y}", "the {x} avoided the {y}",
                      "the {y} stopped the {x}", "the {x} with the {d} didn't cross the {y}",
                      "the {y} with the {d} stopped the {x}", "the {x} with the {d} avoided the {y}"),
    ("fit", "en"): ("the {x} didn't fit in the {y}", "the {y} could not hold the {x}",
                    "the {x} with the {d} didn't fit in the {y}", "the {y} with the {d} could not hold the {x}"),
    ("carry", "en"): ("the {x} couldn't carry the {y}", "the {x} could not lift the {y}",
                      "the {x} with the {d} could not lift the {y}", "the {x} with the {d} couldn't carry the {y}"),
    ("cross", "zh"): ("{x} 没有 过 {y}", "{x} 没能 走过 {y}", "{y} 挡住 了 {x}", "{x} 绕开 了 {y}",
                      "{d} 的 {x} 没有 过 {y}", "{d} 的 {x} 绕开 了 {y}"),
    ("fit", "zh"): ("{x} 放不进 {y}", "{y} 装不下 {x}", "{d} 的 {x} 放不进 {y}", "{d} 的 {y} 装不下 {x}"),
    ("carry", "zh"): ("{x} 背不动 {y}", "{x} 叼不动 {y}", "{d} 的 {x} 背不动 {y}", "{d} 的 {x} 叼不动 {y}"),
}
PROBE_REASON = {"en": ("because it was too {adj}", "since it was very {adj}", "because it was very {adj}",
                       "since it was too {adj}"),
                "zh": ("因为 它 太 {adj} 了", "因为 它 非常 {adj}")}


def probe_frames(family: str, lang: str) -> tuple:
    """The frames of the probe set: every main clause x reason clause, in both orders, minus FRAMES."""
    known = {frame for frame, _ in FRAMES[family, lang]}
    comma = " ， " if lang == "zh" else " , "
    after = " ， " if lang == "zh" else " "
    out = []
    for main in PROBE_MAIN[family, lang]:
        for reason in PROBE_REASON[lang]:
            for frame in (main + after + reason, reason + comma + main):
                if frame not in known and frame not in out:
                    out.append(frame)
    return tuple(out)


def probe_sentences(seed: int = PROBE_SEED, per_frame: int = 4) -> list[Example]:
    """Held-out probe twins in frames that are in neither the training nor the test set (probe_frames),
    with noun pairs, distractors and adjective pairs drawn from `seed`: per_frame twins per frame, both
    languages, every Winograd family. Every sentence is new text; every word is in the vocabulary."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
    if isinstance(per_frame, bool) or not isinstance(per_frame, (int, np.integer)) or per_frame < 1:
        raise ValueError(f"per_frame: expected an integer >= 1, got {per_frame!r}")
    rng = np.random.default_rng(seed)
    corpus = {ex.text for ex in all_examples()}
    out, seen = [], set()
    for lang in LANGUAGES:
        pron = IT_PRONOUN[lang]
        for family, fam in FAMILIES.items():
            adjs = fam["adj"][lang]
            for f, frame in enumerate(probe_frames(family, lang)):
                for _ in range(per_frame):
                    x = str(rng.choice(fam["x"][lang]))
                    y = str(rng.choice(fam["y"][lang]))
                    k = int(rng.integers(len(adjs[0])))
                    d = str(rng.choice(DISTRACTORS[lang]))
                    twin = ("probe", lang, family, f, x, y, k, d if "{d}" in frame else "")
                    if twin in seen:
                        continue
                    seen.add(twin)
                    for adj, answer in ((adjs[0][k], x), (adjs[1][k], y)):
                        toks = tuple(frame.format(x=x, y=y, d=d, adj=adj).split())
                        if " ".join(toks) in corpus:          # cannot happen (new frames); kept as a guard
                            raise AssertionError(f"probe sentence {' '.join(toks)!r} is in the corpus")
                        nouns = _noun_order(toks, x, y, *([d] if "{d}" in frame else []))
                        out.append(Example(toks, pron, answer, lang, family, twin, toks.index(pron), nouns, adj, True))
    return out


# Role swaps: in the plain families a noun's class always coincides with its role, so "adjective class -> the
# noun of that class" answers every one of their sentences. The role-crossing twins (CROSSINGS) put a noun of
# another class in the role; the role swaps measured are the HELD-OUT ones, never trained on:
#     "the puppy couldn't carry the dog because it was too weak" -> puppy (the weak carrier)
#     "the bag didn't fit in the drawer because it was too big"  -> bag (the thing that does not fit)
def role_swaps(split: Split | None = None) -> list[Example]:
    """The held-out role-crossing twins of `split` (default coreference_split()): fit with two containers
    (one in the content's role), carry with a young carrier or two animals of one class, in held-out
    frames, held-out noun pairs and SHOWN_SWAPS. The answer follows the role (adjective class 0 -> the x
    role). Raises AssertionError if one of them is a training sentence (the guard of the measurement)."""
    split = coreference_split() if split is None else split
    swaps = [ex for ex in split.test if ex.crossed]
    trained = {ex.text for ex in split.train}
    seen = [ex.text for ex in swaps if ex.text in trained]
    if seen:
        raise AssertionError(f"role_swaps: {len(seen)} swap sentence(s) are training sentences, e.g. {seen[0]!r}")
    return swaps


def class_lookup_answer(ex: Example) -> str:
    """The shortcut the plain families allow: the adjective's class names a noun class (class 0 -> the
    family's x nouns, class 1 -> its y nouns), and the answer is the sentence's noun of that class (several:
    the first of them; none: no answer, ""). It reads no roles at all, and the role-crossing twins
    contradict it."""
    if ex.kind not in FAMILIES:
        raise ValueError(f"class_lookup_answer: expected a Winograd sentence ({', '.join(FAMILIES)}), "
                         f"got kind {ex.kind!r}")
    fam = FAMILIES[ex.kind]
    cls = 0 if ex.adj in fam["adj"][ex.lang][0] else 1
    pool = fam["x" if cls == 0 else "y"][ex.lang]
    hits = [n for n in ex.nouns if n in pool]
    return hits[0] if hits else ""
