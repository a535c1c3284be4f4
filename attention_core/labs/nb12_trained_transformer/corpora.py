"""The generated corpora of notebook 12: repeated random sequences (induction) and bilingual
templated sentences (pronouns with their Winograd twins, and bank / 银行 in two senses).

Everything is produced by code from a seed: no downloads. Sentences are word-level token lists
(Chinese words are tokens too: 小红 她 银行). A training example is a sentence, the separator
`|`, a query word, and the answer the model must predict after the query word:

    the animal didn't cross the street because it was too tired | it  -> animal
    小红 把 书 递给 小明 ， 因为 他 想 看 | 他                          -> 小明
    tom saw the ducks at the bank | bank                               -> river

Held-out split: the unit held out is a whole *twin* (the two sentences that differ in one word and
have different answers), chosen by a seeded shuffle, so a test twin's sentences never appear in
training; every word of a test sentence does (the model must combine known words anew).
The seed tutorials' own sentences are always held out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CORPUS_VERSION = "nb12-corpora-1"
SEP = "|"

# --- induction --------------------------------------------------------------------------------
INDUCTION_VOCAB = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")      # 26 tokens with no meaning at all
INDUCTION_LEN = 24                                          # T of every training sequence


def induction_batch(rng: np.random.Generator, batch: int, length: int = INDUCTION_LEN,
                    min_half: int = 4, max_half: int | None = None) -> np.ndarray:
    """(B, T) ids: a random prefix, then a random segment of n distinct tokens, then the segment again.

    n varies per row (min_half .. max_half, default T // 2), so the repeat cannot be found by
    position alone: predicting the second copy needs "find the earlier occurrence of my token and
    copy what came next", the induction pattern.
    """
    v = len(INDUCTION_VOCAB)
    max_half = length // 2 if max_half is None else max_half
    out = rng.integers(0, v, (batch, length))
    for row in out:
        n = int(rng.integers(min_half, max_half + 1))
        seg = rng.permutation(v)[:n]                        # n distinct tokens
        start = length - 2 * n                               # the prefix fills the front
        row[start:start + n] = seg
        row[start + n:] = seg
    return out


def repeated_sequences(rng: np.random.Generator, batch: int, half: int = INDUCTION_LEN // 2) -> np.ndarray:
    """(B, 2 * half) fresh test sequences: `half` distinct random tokens, then the same tokens again."""
    v = len(INDUCTION_VOCAB)
    seg = np.stack([rng.permutation(v)[:half] for _ in range(batch)])      # (B, half)
    return np.concatenate([seg, seg], axis=1)                               # (B, 2 * half)


# --- coreference and context, both languages --------------------------------------------------
ANIMALS = {"en": ("animal", "dog", "cat", "horse", "cow", "fox"),
           "zh": ("动物", "狗", "猫", "马", "牛", "狐狸")}
PLACES = {"en": ("street", "road", "river", "bridge", "field", "square"),
          "zh": ("马路", "街道", "河", "桥", "田野", "广场")}
# twin k pairs an animate adjective with a place adjective: the one word that flips the answer
ANIMATE_ADJ = {"en": ("tired", "sleepy", "hungry", "scared"), "zh": ("累", "困", "饿", "害怕")}
PLACE_ADJ = {"en": ("wide", "busy", "long", "muddy"), "zh": ("宽", "挤", "长", "滑")}
IT_FRAMES = {
    "en": ("the {a} didn't cross the {p} because it was too {adj}",
           "the {a} could not reach the {p} because it was too {adj}",
           "the {p} stopped the {a} because it was too {adj}",
           "the {a} avoided the {p} since it was very {adj}"),
    "zh": ("{a} 没有 过 {p} ， 因为 它 太 {adj} 了",
           "{a} 没能 走过 {p} ， 因为 它 太 {adj} 了",
           "{p} 拦住 了 {a} ， 因为 它 太 {adj} 了",
           "{a} 绕开 了 {p} ， 因为 它 非常 {adj}"),
}
IT_PRONOUN = {"en": "it", "zh": "它"}

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

BANK = {"en": "bank", "zh": "银行"}
# the two senses: English money / river bank; Chinese 银行 as an institution (倒闭, 破产) or as a
# place, a landmark (对岸, 对面): the contexts of the seed tutorial, 银行倒闭 and 银行对岸.
SENSES = {"en": ("money", "river"), "zh": ("机构", "地点")}
SENSE_CUES = {"en": (("cashier", "loans", "coins", "savings"), ("ducks", "fish", "boats", "reeds")),
              "zh": (("倒闭", "破产", "降息", "裁员"), ("对岸", "对面", "旁边", "楼上"))}
# every bank sentence of a language has the same length, so that the restated query `bank` sits at
# the same position everywhere and its embedding is identical by construction
BANK_FRAMES = {
    "en": (("{s} saw the {cue} at the bank", "{s} took the {cue} to the bank", "{s} found the {cue} near the bank"),
           ("{s} saw the {cue} at the bank", "{s} took the {cue} to the bank", "{s} found the {cue} near the bank")),
    "zh": (("{s} 听说 那家 银行 {cue} 了", "银行 {cue} 让 {s} 很 担心"),
           ("{s} 住在 那家 银行 的 {cue}", "银行 {cue} 有 {s} 的 家")),
}

# the seeds' own sentences (and notebook 01's) are always held out: the model never trains on them
SEED_TWINS = {("it", "en", 0, "animal", "street", 0), ("it", "zh", 0, "动物", "马路", 0),
              ("person", "zh", 0, "小红", "小明", "想 帮忙"), ("person", "zh", 0, "小红", "小明", "想 看")}


@dataclass(frozen=True)
class Example:
    """One training / test sentence with its query word and answer."""
    tokens: tuple          # the sentence, word by word
    query: str             # the word restated after the separator (a pronoun, or bank / 银行)
    answer: str            # what the model must predict after the query
    lang: str              # "en" or "zh"
    kind: str              # "it" (Winograd), "person" (she / he), "bank"
    twin: tuple            # the id of its twin group (the unit of the held-out split)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def model_input(self) -> tuple:
        """sentence | query: the tokens the model reads; it predicts `answer` after the last one."""
        return self.tokens + (SEP, self.query)


def _it_examples(lang: str):
    pron = IT_PRONOUN[lang]
    for f, frame in enumerate(IT_FRAMES[lang]):
        for a in ANIMALS[lang]:
            for p in PLACES[lang]:
                for k, (adj_a, adj_p) in enumerate(zip(ANIMATE_ADJ[lang], PLACE_ADJ[lang])):
                    twin = ("it", lang, f, a, p, k)
                    for adj, answer in ((adj_a, a), (adj_p, p)):
                        yield Example(tuple(frame.format(a=a, p=p, adj=adj).split()), pron, answer, lang, "it", twin)


def _person_examples(lang: str):
    names = [(x, y) for x in FEMALE[lang] for y in MALE[lang]] + [(y, x) for x in FEMALE[lang] for y in MALE[lang]]
    for f, frame in enumerate(PERSON_FRAMES[lang]):
        for x, y in names:
            female, male = (x, y) if x in FEMALE[lang] else (y, x)
            for tail in PERSON_TAILS[lang]:
                twin = ("person", lang, f, x, y, tail)
                for pron, answer in ((SHE[lang], female), (HE[lang], male)):
                    text = frame.format(x=x, y=y, pron=pron, tail=tail)
                    yield Example(tuple(text.split()), pron, answer, lang, "person", twin)


def _bank_examples(lang: str):
    names = FEMALE[lang] + MALE[lang]
    for sense, (frames, cues) in enumerate(zip(BANK_FRAMES[lang], SENSE_CUES[lang])):
        for f, frame in enumerate(frames):
            for s in names:
                for c, cue in enumerate(cues):
                    # a bank twin: the same frame and subject, cue c of each sense
                    twin = ("bank", lang, f, s, c)
                    yield Example(tuple(frame.format(s=s, cue=cue).split()), BANK[lang], SENSES[lang][sense],
                                  lang, "bank", twin)


def all_examples() -> list[Example]:
    """Every generated sentence, both languages, in a fixed order."""
    out = []
    for lang in ("en", "zh"):
        out += list(_it_examples(lang)) + list(_person_examples(lang)) + list(_bank_examples(lang))
    return out


@dataclass(frozen=True)
class Split:
    train: tuple
    test: tuple


def coreference_split(seed: int = 0, test_fraction: float = 0.2) -> Split:
    """Hold out `test_fraction` of the twin groups of every (kind, language), chosen by a seeded shuffle."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction: expected a number between 0 and 1, got {test_fraction!r}")
    examples = all_examples()
    groups: dict = {}
    for ex in examples:
        groups.setdefault(ex.twin, []).append(ex)
    rng = np.random.default_rng(seed)
    test_twins = set(SEED_TWINS)
    by_kind: dict = {}
    for twin in groups:
        by_kind.setdefault(twin[:2], []).append(twin)
    for key in sorted(by_kind):
        twins = [t for t in by_kind[key] if t not in SEED_TWINS]
        order = rng.permutation(len(twins))
        n_test = int(round(test_fraction * len(by_kind[key]))) - sum(t[:2] == key for t in SEED_TWINS)
        test_twins.update(twins[i] for i in order[:max(n_test, 0)])
    train = tuple(ex for ex in examples if ex.twin not in test_twins)
    test = tuple(ex for ex in examples if ex.twin in test_twins)
    return Split(train, test)


def coreference_vocab() -> tuple:
    """Every token of every sentence, the separator and every answer, sorted (en before zh by code point)."""
    words = {SEP}
    for ex in all_examples():
        words.update(ex.tokens)
        words.update((ex.query, ex.answer))
    return tuple(sorted(words))


def twins(examples, kind: str | None = None, lang: str | None = None) -> list[tuple]:
    """Pairs (a, b) of examples of the same twin group with different answers."""
    groups: dict = {}
    for ex in examples:
        if (kind is None or ex.kind == kind) and (lang is None or ex.lang == lang):
            groups.setdefault(ex.twin, []).append(ex)
    return [tuple(g) for g in groups.values() if len(g) == 2 and g[0].answer != g[1].answer]
